-- Nothing to do on SQLite: read caches notice other connections' commits through
-- `PRAGMA data_version` (lib/db/change-signal.ts). The PostgreSQL migration of the same
-- name adds the change notifications that PostgreSQL needs.
SELECT 1;
