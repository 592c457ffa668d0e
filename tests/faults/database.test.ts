/**
 * The database away (docs/faults.md), through the production server on PostgreSQL behind
 * a TCP proxy of the test's own: cut (connections refused, open ones closed), then frozen
 * (accepted, nothing forwarded). Meanwhile every reply is either a documented 503
 * `unavailable` with Retry-After or a file served from the stale window, each within 5 s;
 * /healthz names the database within its bound; the first request after the fault ends
 * answers within 2 s; the log has one line per outage and one when it is over. Then the
 * consistency check. PostgreSQL only (TEST_DATABASE_URL, as .ci/run's second pass sets it):
 * SQLite is a file in the process and cannot be cut.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server";
import { serverUser, serverApp } from "../support/server-accounts";
import {
  type Acknowledged,
  acknowledged,
  checkConsistency,
  type FaultProxy,
  noisePng,
  openFaultProxy,
  outageLines,
  uploadRequest,
  within,
} from "../support/faults";

const pgUrl = process.env.TEST_DATABASE_URL;
/** The documented bound of a reply during an outage, and of the first one after it. */
const REPLY_BOUND_MS = 5000;
const RECOVERY_BOUND_MS = 2000;
/** /healthz's own bound (HEALTHZ_TIMEOUT_MS, 2 s) and a margin for the request itself. */
const HEALTHZ_BOUND_MS = 3000;

describe.skipIf(!pgUrl)("the database away (PostgreSQL behind a proxy)", () => {
  let proxy: FaultProxy;
  let server: TestServer;
  let key: string;
  const acked: Acknowledged[] = [];
  /** A public file fetched just before each fault: inside the stale window. */
  let decided: Acknowledged;

  beforeAll(async () => {
    const target = new URL(pgUrl!);
    proxy = await openFaultProxy({ host: target.hostname, port: Number(target.port || 5432) });
    server = await startTestServer(
      // The production bound, not the tests' longer one (vitest.config.ts): it is what is measured here.
      { DATABASE_QUERY_TIMEOUT_MS: "3000" },
      {
        databaseUrl: (url) => {
          const viaProxy = new URL(url);
          viaProxy.hostname = "127.0.0.1";
          viaProxy.port = String(proxy.port);
          return viaProxy.toString();
        },
      },
    );
    await serverUser(server, "faulty");
    key = (await serverApp(server, "faulty", "faults", { galleryAccess: true })).key as string;
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  }, 600_000);

  afterAll(async () => {
    await proxy?.restore();
    await server?.stop();
    await proxy?.close();
  });

  async function uploadOne(): Promise<Acknowledged> {
    const reply = await within(REPLY_BOUND_MS, `${server.url}/api/upload`, uploadRequest([await noisePng(64)], key));
    expect(reply.status, await reply.clone().text()).toBe(200);
    const post = acknowledged(await reply.json());
    acked.push(post);
    return post;
  }

  /** A 503 of the documented shape: `unavailable`, Retry-After, our JSON. */
  async function expectUnavailable(reply: Response, what: string): Promise<void> {
    const text = await reply.text();
    expect(reply.status, `${what}: ${text}`).toBe(503);
    expect(reply.headers.get("retry-after"), what).toMatch(/^\d+$/);
    if (!what.startsWith("page")) expect(JSON.parse(text).error.type, what).toBe("unavailable");
  }

  /** What the clients of each surface try while the database is away. */
  async function duringFault(fault: string, neverFetched: Acknowledged): Promise<void> {
    const image = await noisePng(64);
    const [upload, read, relay, cdnDecided, cdnOther, health, page] = await Promise.all([
      within(REPLY_BOUND_MS, `${server.url}/api/upload`, uploadRequest([image], key)),
      within(REPLY_BOUND_MS, `${server.url}/api/posts/${neverFetched.code}`, { headers: { "api-key": key } }),
      within(REPLY_BOUND_MS, `${server.url}/relay/gifs?limit=7`),
      within(REPLY_BOUND_MS, `${server.url}${decided.file}`),
      within(REPLY_BOUND_MS, `${server.url}${neverFetched.file}`),
      within(HEALTHZ_BOUND_MS, `${server.url}/healthz`),
      within(REPLY_BOUND_MS, `${server.url}/p/${neverFetched.code}`),
    ]);
    await expectUnavailable(upload, `${fault}: upload`);
    await expectUnavailable(read, `${fault}: post read`);
    await expectUnavailable(relay, `${fault}: relay`);
    await expectUnavailable(cdnOther, `${fault}: /cdn outside the stale window`);
    await expectUnavailable(page, `page ${fault}: share page`);
    // Decided within the stale window: still served, byte for byte.
    expect(cdnDecided.status, `${fault}: /cdn inside the stale window`).toBe(200);
    expect((await cdnDecided.arrayBuffer()).byteLength).toBe(decided.size);
    expect(health.status).toBe(503);
    const body = (await health.json()) as { status: string; down: string[]; reason: string };
    expect(body.down).toEqual(["database"]);
    expect(body.reason).toMatch(/^database: /);
  }

  /**
   * Once the fault is over: a client retrying (every 100 ms here; the server checks every
   * 500 ms whether the database is back) is answered within RECOVERY_BOUND_MS of the end.
   */
  async function afterFault(): Promise<void> {
    const ended = Date.now();
    let read: Response;
    for (;;) {
      read = await within(RECOVERY_BOUND_MS, `${server.url}/api/posts/${acked[0].code}`, { headers: { "api-key": key } });
      if (read.status !== 503 || Date.now() - ended > RECOVERY_BOUND_MS) break;
      await new Promise((resume) => setTimeout(resume, 100));
    }
    expect(read.status, `not recovered within ${RECOVERY_BOUND_MS} ms: ${await read.clone().text()}`).toBe(200);
    const health = await within(RECOVERY_BOUND_MS, `${server.url}/healthz`);
    expect(health.status).toBe(200);
    await uploadOne();
  }

  it("cut: refused connections answer 503 unavailable everywhere, public files decided a moment ago are still served", async () => {
    const neverFetched = await uploadOne();
    decided = await uploadOne();
    expect((await within(REPLY_BOUND_MS, `${server.url}${decided.file}`)).status).toBe(200);
    await proxy.cut();
    try {
      await duringFault("cut", neverFetched);
      // A second wave: the outage is known now, and answered the same way.
      await duringFault("cut-again", neverFetched);
    } finally {
      await proxy.restore();
    }
    await afterFault();
  }, 60_000);

  it("frozen: connections that stop answering give 503 within the bound, /healthz within its own", async () => {
    const neverFetched = await uploadOne();
    decided = await uploadOne();
    expect((await within(REPLY_BOUND_MS, `${server.url}${decided.file}`)).status).toBe(200);
    proxy.freeze();
    try {
      await duringFault("freeze", neverFetched);
    } finally {
      await proxy.restore();
    }
    await afterFault();
  }, 60_000);

  it("logs one line per outage and one when it is over, with the refused requests, not a stack per request", () => {
    const { down, up } = outageLines(server.output(), "database");
    const lines = [...down, ...up].join("\n");
    expect(down, lines).toHaveLength(2);
    expect(up, lines).toHaveLength(2);
    for (const line of up) expect(line).toMatch(/; [1-9]\d* requests refused meanwhile$/);
    // Our own per-request logs of failures are absent; Next may print the one page error
    // that found the outage (a page asked before it was known), never one per request.
    const output = server.output();
    expect(output).not.toMatch(/request \S+ failed|cdn request failed|upload: file failed|not recorded|not counted/);
    expect(output.match(/^⨯ /gm)?.length ?? 0).toBeLessThanOrEqual(2);
  });

  it("afterwards: every acknowledged post is readable, usage equals the stored bytes", async () => {
    await checkConsistency(server.url, key, acked);
  }, 30_000);
});
