-- Nothing to do on SQLite: every commit moves `PRAGMA data_version`, which the read caches
-- follow (lib/db/change-signal.ts). The PostgreSQL migration of the same name adds the
-- change notifications of the third wave's new column and table.
SELECT 1;
