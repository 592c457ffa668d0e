/**
 * For a transaction that starts with a write: on SQLite one that reads first can fail at once with
 * SQLITE_BUSY, while one that writes first waits (busy timeout 15 s, Prisma's default only 5 s).
 */
export const WRITE_TRANSACTION = { maxWait: 20_000, timeout: 20_000 } as const;

// Prisma errors are checked by code rather than `instanceof`: the SQLite and PostgreSQL
// clients are generated separately, and the codes are what Prisma documents as stable.

function prismaCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  const code = (error as { code: unknown }).code;
  return typeof code === "string" ? code : undefined;
}

export const isUniqueViolation = (error: unknown): boolean => prismaCode(error) === "P2002";

export const isRecordNotFound = (error: unknown): boolean => prismaCode(error) === "P2025";

export const isForeignKeyViolation = (error: unknown): boolean => prismaCode(error) === "P2003";
