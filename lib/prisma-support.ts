/**
 * Small helpers for domain code that writes through Prisma: recognising the errors it
 * turns into DomainErrors, and the options of its interactive transactions.
 */

/**
 * Options for an interactive transaction that starts with a write. Starting with a write
 * matters on SQLite: a transaction that reads first and writes later can fail at once
 * with SQLITE_BUSY when another process (the server, another CLI call) writes meanwhile,
 * while one that writes first waits its turn. The limits cover that wait: the SQLite busy
 * timeout is 15 s (lib/db/adapter.ts), Prisma's default transaction timeout only 5 s.
 */
export const WRITE_TRANSACTION = { maxWait: 20_000, timeout: 20_000 } as const;

// Prisma errors are checked by code rather than `instanceof`: the SQLite and PostgreSQL
// clients are generated separately, and the codes are what Prisma documents as stable.

function prismaCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  const code = (error as { code: unknown }).code;
  return typeof code === "string" ? code : undefined;
}

/** P2002: a unique constraint refused the write (a concurrent insert won the race). */
export const isUniqueViolation = (error: unknown): boolean => prismaCode(error) === "P2002";

/** P2025: `update`/`delete` found no row to change. */
export const isRecordNotFound = (error: unknown): boolean => prismaCode(error) === "P2025";

/** P2003: a foreign key points at a row that does not exist. */
export const isForeignKeyViolation = (error: unknown): boolean => prismaCode(error) === "P2003";
