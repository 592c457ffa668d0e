-- Key activity (App."lastUsedAt", RelaySession."lastActiveAt") is written in batches while
-- keys are in use, and no read cache reads it (lib/db/unannounced.ts). Its UPDATEs must not
-- notify `mediahost_changes`: each notification empties every read cache of the schema.
-- The triggers of `cache_change_notify` on these two tables are replaced by ones that
-- fire on UPDATE only when the statement sets another column. A column added to either
-- table must be added to its list in a new migration: tests/cache/activity-unannounced.test.ts
-- fails until it is. (No semicolons in these comments: Prisma's PostgreSQL adapter splits
-- migration scripts at every one.)
DROP TRIGGER "App_notify_change" ON "App";
CREATE TRIGGER "App_notify_change" AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE OF "id", "userId", "name", "keyHash", "keyHint", "galleryAccess", "revokedAt", "createdAt" ON "App" FOR EACH STATEMENT EXECUTE FUNCTION mediahost_notify_change();
DROP TRIGGER "RelaySession_notify_change" ON "RelaySession";
CREATE TRIGGER "RelaySession_notify_change" AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE OF "id", "userId", "keyHash", "name", "userAgent", "ip", "createdAt" ON "RelaySession" FOR EACH STATEMENT EXECUTE FUNCTION mediahost_notify_change();
