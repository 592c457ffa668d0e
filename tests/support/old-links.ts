/**
 * For the import tests (docs/migrate.md): the admin CLI as a process on a test server's
 * database (exit code, JSON, stderr), requests with a Host of our choosing (an old host
 * pointed at the server), and small distinct PNGs.
 */
import { execFile } from "node:child_process";
import { request } from "node:http";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import pg from "pg";
import sharp from "sharp";
import type { TestServer } from "./server";

const root = fileURLToPath(new URL("../..", import.meta.url));

export interface CliRun {
  code: number;
  json: Record<string, unknown>;
  stderr: string;
}

export async function importCli(server: Pick<TestServer, "env">, env: Record<string, string>, ...args: string[]): Promise<CliRun> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ["scripts/launch.mjs", "admin", ...args], {
      cwd: root,
      env: { ...process.env, ...server.env, ...env },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, json: JSON.parse(stdout) as Record<string, unknown>, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, json: JSON.parse(failed.stdout || "{}") as Record<string, unknown>, stderr: failed.stderr ?? "" };
  }
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** GET `path` (already percent-encoded) from the server with `host` as the Host header. */
export function getAs(serverUrl: string, path: string, host?: string): Promise<Answer> {
  const url = new URL(serverUrl);
  return new Promise((resolve, reject) => {
    const req = request({ hostname: url.hostname, port: url.port, path, method: "GET", headers: host ? { host } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** Follows one 301 from an old address to this server (its Location's path) and returns the final answer. */
export async function followOnce(serverUrl: string, answer: Answer): Promise<Answer> {
  const location = String(answer.headers.location ?? "");
  const target = new URL(location, serverUrl);
  return getAs(serverUrl, `${target.pathname}${target.search}`);
}

/** A small PNG of its own colour: every call with another n gives other bytes. */
export const png = (n: number): Promise<Buffer> =>
  sharp({ create: { width: 16 + (n % 7), height: 12, channels: 3, background: { r: (n * 37) % 256, g: (n * 91) % 256, b: n % 256 } } })
    .png()
    .toBuffer();

/** A PostgreSQL database to hold a peer's tables: the test run's, else the local one; null when none answers. */
export async function peerDatabase(): Promise<string | null> {
  const url = process.env.TEST_DATABASE_URL ?? process.env.TEST_PEER_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return url;
  } catch {
    return null;
  }
}

/** A fresh schema of `url`'s database, with `sql` run in it; the URL names it (`?schema=`, as Prisma writes it). */
export async function peerSchema(url: string, name: string, sql: string): Promise<{ url: string; drop(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE; CREATE SCHEMA "${name}"; SET search_path TO "${name}";`);
    await client.query(sql);
  } finally {
    await client.end();
  }
  const withSchema = new URL(url);
  withSchema.searchParams.set("schema", name);
  return {
    url: withSchema.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
      await c.end();
    },
  };
}
