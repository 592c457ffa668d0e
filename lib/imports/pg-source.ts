/**
 * A peer's PostgreSQL database, read-only, keyset-paged so memory stays flat. `timestamp without
 * time zone` columns, which Prisma-based peers write in UTC, are read as UTC.
 */
import type pg from "pg";
import { optionalPackage } from "@/lib/config/packages";
import { DomainError } from "@/lib/errors";

export const PAGE_ROWS = 500;
const TIMESTAMP_OID = 1114;

export type Row = Record<string, unknown>;

export class PgSource {
  private constructor(private readonly client: pg.Client) {}

  static async open(url: string): Promise<PgSource> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new DomainError("invalid_request", "--from must be a postgresql:// URL.");
    }
    if (!/^postgres(ql)?:$/.test(parsed.protocol)) throw new DomainError("invalid_request", "--from must be a postgresql:// URL.");
    const schema = parsed.searchParams.get("schema");
    parsed.searchParams.delete("schema");
    // Loaded here, not imported: every admin command would load it (and, through it, undici).
    const pg = optionalPackage<typeof import("pg")>("pg");
    const client = new pg.Client({
      connectionString: parsed.toString(),
      types: {
        getTypeParser: ((oid: number, format?: "text" | "binary") =>
          oid === TIMESTAMP_OID
            ? (value: string) => new Date(`${value.replace(" ", "T")}Z`)
            : pg.types.getTypeParser(oid, format ?? "text")) as typeof pg.types.getTypeParser,
      },
    });
    try {
      await client.connect();
      if (schema) await client.query(`SET search_path TO ${pg.escapeIdentifier(schema)}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw new DomainError("invalid_request", `The peer's database could not be opened: ${(error as Error).message}`);
    }
    return new PgSource(client);
  }

  async query(sql: string, values: unknown[] = []): Promise<Row[]> {
    return (await this.client.query(sql, values)).rows as Row[];
  }

  async columns(table: string): Promise<Set<string>> {
    const rows = await this.query(
      "SELECT column_name FROM information_schema.columns WHERE table_name = $1 AND table_schema = ANY (current_schemas(false))",
      [table],
    );
    return new Set(rows.map((r) => String(r.column_name)));
  }

  async *pages(select: string, from: string, key: string, idType: "int" | "text"): AsyncGenerator<Row> {
    let after: unknown = null;
    for (;;) {
      const where = after === null ? "" : `WHERE ${key} > $1::${idType === "int" ? "bigint" : "text"}`;
      const rows = await this.query(
        `SELECT ${select} FROM ${from} ${where} ORDER BY ${key} LIMIT ${PAGE_ROWS}`,
        after === null ? [] : [after],
      );
      for (const row of rows) yield row;
      if (rows.length < PAGE_ROWS) return;
      after = rows[rows.length - 1].id;
    }
  }

  close(): Promise<void> {
    return this.client.end();
  }
}

/** The hash scheme of a stored password, by its prefix (none of them is checked here). */
export function passwordScheme(hash: unknown): string | null {
  if (typeof hash !== "string" || !hash) return null;
  if (hash.startsWith("$argon2")) return "argon2";
  if (/^\$2[abxy]\$/.test(hash)) return "bcrypt";
  return "unknown";
}
