-- The third wave's additions that read caches depend on (lib/db/change-signal.ts).
-- RelaySession gained "confirmedAt" (a recent confirmation, docs/web-auth.md): its narrowed
-- trigger (activity_unannounced) must watch it like every column but the activity one.
-- FileText (the text read from an image, docs/ocr.md) is part of the post record the post
-- caches hold (lib/posts/record.ts), so its writes must empty them as File's do.
-- (No semicolons in these comments: Prisma's PostgreSQL adapter splits scripts at each one.)
DROP TRIGGER "RelaySession_notify_change" ON "RelaySession";
CREATE TRIGGER "RelaySession_notify_change" AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE OF "id", "userId", "keyHash", "name", "userAgent", "ip", "createdAt", "confirmedAt" ON "RelaySession" FOR EACH STATEMENT EXECUTE FUNCTION mediahost_notify_change();
CREATE TRIGGER "FileText_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "FileText" FOR EACH STATEMENT EXECUTE FUNCTION mediahost_notify_change();
