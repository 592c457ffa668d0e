-- Read caches (lib/db/change-signal.ts) must learn of every committed write, whichever
-- process made it. Each statement that changes a table they read notifies the channel
-- `mediahost_changes` with the table's schema (deployments and test runs may share one
-- database, one schema each), which PostgreSQL delivers at commit (never for a rollback),
-- once per transaction and schema. A cache that reads another table needs its trigger here too.
-- The function body spells its semicolons as \073: Prisma's PostgreSQL adapter splits
-- migration scripts at every semicolon, even inside quoted function bodies.
CREATE OR REPLACE FUNCTION mediahost_notify_change() RETURNS trigger LANGUAGE plpgsql
  AS E'BEGIN PERFORM pg_notify(''mediahost_changes'', TG_TABLE_SCHEMA)\073 RETURN NULL\073 END';

CREATE TRIGGER "User_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "User" FOR EACH STATEMENT EXECUTE FUNCTION mediahost_notify_change();
CREATE TRIGGER "App_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "App" FOR EACH STATEMENT EXECUTE FUNCTION mediahost_notify_change();
CREATE TRIGGER "RelaySession_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "RelaySession" FOR EACH STATEMENT EXECUTE FUNCTION mediahost_notify_change();
CREATE TRIGGER "Team_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "Team" FOR EACH STATEMENT EXECUTE FUNCTION mediahost_notify_change();
CREATE TRIGGER "TeamMember_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "TeamMember" FOR EACH STATEMENT EXECUTE FUNCTION mediahost_notify_change();
CREATE TRIGGER "Post_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "Post" FOR EACH STATEMENT EXECUTE FUNCTION mediahost_notify_change();
CREATE TRIGGER "File_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "File" FOR EACH STATEMENT EXECUTE FUNCTION mediahost_notify_change();
CREATE TRIGGER "PostAccess_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "PostAccess" FOR EACH STATEMENT EXECUTE FUNCTION mediahost_notify_change();
CREATE TRIGGER "Like_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "Like" FOR EACH STATEMENT EXECUTE FUNCTION mediahost_notify_change();
