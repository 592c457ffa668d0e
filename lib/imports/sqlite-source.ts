/** A peer's SQLite database, read-only, keyset-paged so memory stays flat. */
import Database from "better-sqlite3";
import { DomainError } from "@/lib/errors";

export const PAGE_ROWS = 500;
export type Row = Record<string, unknown>;

export class SqliteSource {
  private constructor(private readonly db: Database.Database) {}

  static open(path: string): SqliteSource {
    try {
      return new SqliteSource(new Database(path, { readonly: true, fileMustExist: true }));
    } catch (error) {
      throw new DomainError("invalid_request", `The peer's SQLite database could not be opened: ${(error as Error).message}`);
    }
  }

  columns(table: string): Set<string> {
    const rows = this.db.prepare("SELECT name FROM pragma_table_info(?)").all(table) as { name: string }[];
    return new Set(rows.map((r) => r.name));
  }

  all(sql: string, ...values: unknown[]): Row[] {
    return this.db.prepare(sql).all(...values) as Row[];
  }

  async *pages(select: string, from: string, key: string): AsyncGenerator<Row> {
    let after = Number.MIN_SAFE_INTEGER;
    const page = this.db.prepare(`SELECT ${select} FROM ${from} WHERE ${key} > ? ORDER BY ${key} LIMIT ${PAGE_ROWS}`);
    for (;;) {
      const rows = page.all(after) as Row[];
      for (const row of rows) yield row;
      if (rows.length < PAGE_ROWS) return;
      after = Number(rows[rows.length - 1].id);
    }
  }

  close(): void {
    this.db.close();
  }
}

/** Prisma's epoch ms, or text (`CURRENT_TIMESTAMP`'s UTC form, or ISO 8601). */
export function sqliteDate(value: unknown): Date | null {
  if (value === null || value === undefined || value === "") return null;
  if (typeof value === "number" || typeof value === "bigint" || /^\d+$/.test(String(value))) return new Date(Number(value));
  const text = String(value);
  const iso = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text) ? `${text.replace(" ", "T")}Z` : text;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? null : date;
}
