/**
 * The property of the HTTP fuzz (docs/fuzzing.md), shared by `npm test` (tests/fuzz/http.test.ts)
 * and `npm run fuzz` (more runs): every generated request gets a complete response, never a
 * status >= 500; on /api, /relay and /cdn every rejection is the documented error object
 * whose type matches its status (interface.md, Errors); the server stays up and its RSS
 * bounded.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import fc from "fast-check";
import { ERROR_STATUS, type ErrorType } from "@/lib/errors";
import { freePort, startTestServer, type TestServer } from "../support/server";
import { sendRaw, type RawResponse } from "./raw-http";
import { describeCase, fuzzCase, serialize, type FuzzCase, type FuzzContext } from "./requests";

const run = promisify(execFile);

/** Long enough for a loaded machine, short enough that a hang fails the case. */
export const REPLY_TIMEOUT_MS = 30_000;

export interface FuzzTarget {
  server: TestServer;
  context: FuzzContext;
  origin: URL;
}

export async function startFuzzTarget(): Promise<FuzzTarget> {
  const port = await freePort();
  // Limits scaled up so valid keys reach handlers instead of stopping at 429 (still checked
  // as documented when they do answer 429).
  const server = await startTestServer({
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATABASE_URL: "",
    RATE_LIMIT_SCALE: "100000",
  });
  const admin = async (...args: string[]) =>
    JSON.parse(
      (
        await run(process.execPath, ["scripts/launch.mjs", "admin", ...args], {
          env: { ...process.env, DATA_DIR: server.dataDir, DATABASE_URL: "" },
        })
      ).stdout,
    ) as Record<string, string>;
  // Each admin call is a process start: the independent ones run at once.
  const [user] = await Promise.all([
    admin("user", "create", "--username", "fuzz_owner", "--plan", "ultra"),
    admin("user", "create", "--username", "fuzz_other"),
  ]);
  const [api, apiUploadOnly, relay, team] = (
    await Promise.all([
      admin("app", "create", "--user", "fuzz_owner", "--name", "Fuzz", "--gallery-access"),
      admin("app", "create", "--user", "fuzz_owner", "--name", "Uploader"),
      admin("session", "create", "--user", "fuzz_owner"),
      admin("team", "create", "--owner", "fuzz_owner"),
    ])
  ).map((r) => r.key);
  const known = { code: [] as string[], name: [] as string[], id: [user.id, "fuzz_owner", "fuzz_other", "@me"] };
  for (const privacy of ["public", "unlisted", "private"]) {
    const form = new FormData();
    form.append("file", new Blob([PNG_8X8]), "fuzz.png");
    const res = await fetch(`http://127.0.0.1:${port}/api/upload`, {
      method: "POST",
      headers: { "api-key": api, "post-privacy": privacy },
      body: form,
    });
    const reply = (await res.json()) as { post: { code: string; files: { name: string }[] } };
    known.code.push(reply.post.code);
    known.name.push(...reply.post.files.map((f) => f.name));
  }
  return { server, context: { api, apiUploadOnly, relay, team, known }, origin: new URL(server.url) };
}

/** 8×8 PNG (sharp-made): a real image for the posts the fuzz finds. */
const PNG_8X8 = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAEklEQVR4nGP4z8CAFWEXHbQSACj/P8Fu7N9hAAAAAElFTkSuQmCC",
  "base64",
);

export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  return kb ? Number(kb[1]) * 1024 : 0;
}

const isOurs = (path: string): boolean => /^\/(api|relay|cdn)(\/|\?|$)/.test(path) && !/^\/api\/auth(\/|\?|$)/.test(path);

/** Throws (with the case in the message) when a reply breaks the rules. */
export function checkReply(c: FuzzCase, res: RawResponse): void {
  const fail = (why: string): never => {
    throw new Error(
      `${why}\n  status ${res.status}, body ${JSON.stringify(res.body.subarray(0, 300).toString("utf8"))}\n  case ${describeCase(c)}`,
    );
  };
  if (res.status >= 500) fail("a status >= 500");
  if (!res.headers["request-id"]) fail("no request-id");
  const target = Buffer.isBuffer(c.target) ? c.target.toString("latin1") : c.target;
  // JSON errors from anywhere (the HTTP parser's refusals too) follow the same rules.
  const json = /^application\/json/.test(res.headers["content-type"] ?? "");
  if (res.status < 400 || c.method === "HEAD" || (!isOurs(target) && !json)) return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(res.body.toString("utf8"));
  } catch {
    fail("an error reply that is not JSON");
  }
  const error = (parsed as { error?: { type?: unknown; message?: unknown } }).error;
  if (!error || typeof error.type !== "string" || typeof error.message !== "string") return fail("no {error: {type, message}}");
  if (!(error.type in ERROR_STATUS)) fail(`undocumented error type ${error.type}`);
  const documented = ERROR_STATUS[error.type as ErrorType];
  // Statuses documented apart from the table: the parser's own (interface.md: "a request
  // body that cannot be parsed returns invalid_request with the parser's status").
  const parserStatus = error.type === "invalid_request" && [400, 413, 414, 431].includes(res.status);
  // tus 1.0 prescribes its own statuses on /tus (docs/resumable-uploads.md): 412 for a missing
  // Tus-Resumable, 415 for another body type, 409 for an offset mismatch, 410 once expired.
  const tusStatus = /^\/(api|relay)\/tus(\/|\?|$)/.test(target) && [409, 410, 412, 415].includes(res.status);
  if (res.status !== documented && !parserStatus && !tusStatus)
    fail(`type ${error.type} with status ${res.status} (documented: ${documented})`);
  if (res.status === 405 && !res.headers.allow) fail("405 without Allow");
  if (res.status === 429 && !res.headers["retry-after"]) fail("429 without Retry-After");
}

export async function sendCase(target: FuzzTarget, c: FuzzCase): Promise<RawResponse> {
  // The server lingers on a body it did not read (lib/server/linger.ts), so an early answer
  // reaches this client even while it is still writing: one send, no retries.
  return sendRaw(target.origin, serialize(c, target.origin.host), REPLY_TIMEOUT_MS, { head: c.method === "HEAD" });
}

export interface FuzzRun {
  cases: number;
  seed: number;
  statuses: Record<number, number>;
  rssStart: number;
  rssPeak: number;
  ms: number;
  /** 2xx replies per target (`surface routeId`): how far past the checks the cases got. */
  succeeded: Record<string, number>;
  /** Only when exploring (`collect`): each kind of failure once, with a count. */
  failures: string[];
}

/** Memory the server may grow by over a run: caches and allocator slack, not leaks. */
export const RSS_GROWTH_LIMIT = 300 * 1024 * 1024;

export async function runHttpFuzz(target: FuzzTarget, options: { numRuns: number; seed: number; collect?: boolean }): Promise<FuzzRun> {
  const started = Date.now();
  const statuses: Record<number, number> = {};
  const succeeded: Record<string, number> = {};
  const rssStart = rssBytes(target.server.pid);
  let rssPeak = rssStart;
  let cases = 0;
  const failures = new Map<string, { count: number; first: string }>();
  const property = fc.asyncProperty(fuzzCase(target.context), async (c) => {
    cases++;
    try {
      const res = await sendCase(target, c);
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      if (res.status < 300) succeeded[c.note] = (succeeded[c.note] ?? 0) + 1;
      checkReply(c, res);
    } catch (error) {
      if (!options.collect) throw error;
      // Exploring: group failures by their first line and go on.
      const text = error instanceof Error ? error.message : String(error);
      const kind = `${text.split("\n")[0]} [${c.note}]`;
      const seen = failures.get(kind);
      if (seen) seen.count++;
      else failures.set(kind, { count: 1, first: text.slice(0, 1500) });
    }
    if (cases % 100 === 0) {
      rssPeak = Math.max(rssPeak, rssBytes(target.server.pid));
      if (rssPeak - rssStart > RSS_GROWTH_LIMIT) throw new Error(`RSS grew by ${Math.round((rssPeak - rssStart) / 2 ** 20)} MB`);
    }
  });
  // No shrinking: each step would be another request against a shared server. The failing
  // case is printed whole (describeCase) and its seed and path replay it.
  const outcome = await fc.check(property, { numRuns: options.numRuns, seed: options.seed, endOnFailure: true });
  if (outcome.failed) {
    const why = outcome.errorInstance instanceof Error ? outcome.errorInstance.message : String(outcome.errorInstance);
    throw new Error(
      `http fuzz failed at case ${outcome.numRuns} (seed ${outcome.seed}, path "${outcome.counterexamplePath}"): ${why.slice(0, 3000)}`,
    );
  }
  rssPeak = Math.max(rssPeak, rssBytes(target.server.pid));
  return {
    cases,
    seed: options.seed,
    statuses,
    succeeded,
    rssStart,
    rssPeak,
    ms: Date.now() - started,
    failures: [...failures].map(([kind, f]) => `${f.count}× ${kind}\n${f.first}`),
  };
}
