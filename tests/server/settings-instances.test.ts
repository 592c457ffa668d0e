/**
 * A setting changed in the console applies on every instance within 2 s (issue 38 §2): two
 * production servers on one database (PostgreSQL + Redis in CI's second pass, one SQLite
 * file here), the change made through the console's verb, and a text upload, refused before,
 * taken by the other instance after it.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverApp, serverSetting, serverUser } from "../support/server-accounts";
import { startTestServer, type TestServer } from "../support/server";

let first: TestServer;
let second: TestServer;
let key: string;

beforeAll(async () => {
  first = await startTestServer();
  // The same database: PostgreSQL's URL, or the first server's SQLite file.
  const database = first.env.DATABASE_URL || `file:${join(first.dataDir, "mediahost.db")}`;
  second = await startTestServer({ DATABASE_URL: database });
  await serverUser(first, "settings-owner");
  ({ key } = await serverApp(first, "settings-owner", "script"));
}, 120_000);

afterAll(async () => {
  await second?.stop();
  await first?.stop();
});

async function uploadText(server: TestServer): Promise<{ status: number; type?: string }> {
  const form = new FormData();
  form.append("file", new Blob(["hello from a script\n"], { type: "text/plain" }), "notes.txt");
  const response = await fetch(`${server.url}/api/upload`, { method: "POST", body: form, headers: { "api-key": key } });
  const body = (await response.json()) as { error?: { type: string } };
  return { status: response.status, type: body.error?.type };
}

/**
 * Polls `server` until its answer to a text upload is `wanted` (or 5 s pass); the time it took.
 * Every 250 ms: each accepted poll is an upload, and more than 8 in a second from one personal
 * key suspends the account (interface.md, the burst rule), which polling every 100 ms reached.
 */
async function untilAnswer(server: TestServer, wanted: (result: { status: number; type?: string }) => boolean, since: number) {
  let result = await uploadText(server);
  while (!wanted(result) && Date.now() - since < 5_000) {
    await new Promise((done) => setTimeout(done, 250));
    result = await uploadText(server);
  }
  return { result, elapsed: Date.now() - since };
}

describe("settings across instances", () => {
  it("UPLOAD_FILES changed on one instance's database applies on both within 2 s, and back", async () => {
    expect(await uploadText(second)).toMatchObject({ type: "unsupported_type" });
    const changedAt = Date.now();
    await serverSetting(first, "UPLOAD_FILES", "media,text");
    for (const server of [second, first]) {
      const { result, elapsed } = await untilAnswer(server, (r) => r.status === 200, changedAt);
      expect(result.status).toBe(200);
      expect(elapsed).toBeLessThan(2_000);
    }

    // And back: the default again everywhere.
    const backAt = Date.now();
    await serverSetting(first, "UPLOAD_FILES", null);
    for (const server of [second, first]) {
      const { result, elapsed } = await untilAnswer(server, (r) => r.status !== 200, backAt);
      expect(result.type).toBe("unsupported_type");
      expect(elapsed).toBeLessThan(2_000);
    }
  });
});
