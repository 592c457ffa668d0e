/** Our production server for bench:serve: its start, its PostgreSQL schema, and requests to check what it answers. */
import type { OutgoingHttpHeaders } from "node:http";
import { log, onCleanup, ROOT, sleep } from "../support/run";
import { startServer, type Server } from "../support/server";
import type { Options } from "./options";

/** A server that cannot start (the tree may be mid-change) is retried after this. */
const START_ATTEMPTS = 3;
const START_RETRY_MS = 60_000;

/** The production build and server; retried when the tree is mid-change and it cannot build or start. */
export async function startOurs(options: Options, extraEnv: Record<string, string>): Promise<Server> {
  const { ensureBuild } = await import("../../lib/server/build");
  for (let attempt = 1; ; attempt++) {
    try {
      // A build (when the sources changed) can take minutes and may wait for another
      // process's build; it is not what we measure.
      await ensureBuild(ROOT, { stdio: "pipe", log });
      // SERVER_NODE_OPTIONS: V8 settings to try on the server (memory experiments).
      const nodeOptions: Record<string, string> = process.env.SERVER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.SERVER_NODE_OPTIONS } : {};
      return await startServer({ ...extraEnv, ...nodeOptions }, options.profileDir);
    } catch (error) {
      if (attempt >= START_ATTEMPTS) throw error;
      log(
        `the server did not build or start (attempt ${attempt}/${START_ATTEMPTS}), retrying in ${START_RETRY_MS / 1000} s: ${String(error).slice(0, 2000)}`,
      );
      await sleep(START_RETRY_MS);
    }
  }
}

/** A fresh schema of the PostgreSQL database for this run, dropped at the end: the URL with `?schema=`. */
export async function freshSchema(baseUrl: string): Promise<string> {
  const { default: pg } = await import("pg");
  const schema = `bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.query(`CREATE SCHEMA "${schema}"`);
  } finally {
    await admin.end();
  }
  onCleanup(async () => {
    const c = new pg.Client({ connectionString: baseUrl });
    await c.connect();
    try {
      await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    } finally {
      await c.end();
    }
  });
  const url = new URL(baseUrl);
  url.searchParams.set("schema", schema);
  return url.toString();
}

/** A URL the service returned, as a path on the server we started (PUBLIC_URL is its origin anyway). */
export const pathOf = (url: string): string => {
  const u = new URL(url);
  return u.pathname + u.search;
};

export interface Probe {
  status: number;
  headers: Headers;
  body: Buffer;
}

export async function probe(server: Server, path: string, headers: Record<string, string> = {}): Promise<Probe> {
  // Twice: fetch may reuse a pooled connection the server has just closed as idle.
  for (let attempt = 1; ; attempt++) {
    try {
      // wrk sends no Accept-Encoding: the mirrored headers and bytes must be the uncompressed reply's.
      const res = await fetch(`${server.url}${path}`, { headers: { "accept-encoding": "identity", ...headers } });
      return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
    } catch (error) {
      if (attempt < 2) continue;
      const cause = error instanceof Error && error.cause !== undefined ? ` (${String(error.cause)})` : "";
      throw new Error(`GET ${path}: ${String(error)}${cause}\nserver output (end):\n${server.output().slice(-3000)}`);
    }
  }
}

export function expectStatus(what: string, p: Probe, status: number): void {
  if (p.status !== status) throw new Error(`${what}: expected HTTP ${status}, got ${p.status} ${p.body.toString("utf8").slice(0, 300)}`);
}

/** Headers of a reply of ours to copy into the reference: everything but the per-connection and length ones. */
export function mirrorHeaders(headers: Headers): OutgoingHttpHeaders {
  const skip = new Set(["date", "connection", "keep-alive", "transfer-encoding", "content-length", "content-range"]);
  const out: OutgoingHttpHeaders = {};
  headers.forEach((value, name) => {
    if (!skip.has(name)) out[name] = value;
  });
  return out;
}

/** Our file headers less those nginx sets itself (type, validators, ranges): what nginx adds to the files it sends directly. */
export function directHeaders(reply: Probe): Record<string, string> {
  const own = new Set(["content-type", "etag", "last-modified", "accept-ranges"]);
  return Object.fromEntries(
    Object.entries(mirrorHeaders(reply.headers))
      .filter(([name]) => !own.has(name))
      .map(([n, v]) => [n, String(v)]),
  );
}
