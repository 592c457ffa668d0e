-- Nothing to do on SQLite: key activity is written on the change watcher's own connection,
-- whose commits `PRAGMA data_version` does not count (lib/db/unannounced.ts). The
-- PostgreSQL migration of the same name narrows the change notifications' triggers.
SELECT 1;
