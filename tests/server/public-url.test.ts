import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/config/env";
import { fixture } from "../support/media";
import { freePort, startTestServer, type TestServer } from "../support/server";
import { serverApp, serverUser } from "../support/server-accounts";

describe("parseEnv: the default PUBLIC_URL", () => {
  it("follows PORT; 3000 when PORT is unset; PUBLIC_URL and the per-surface URLs still win", () => {
    expect(parseEnv({ PORT: "3999" })).toMatchObject({
      PUBLIC_URL: "http://localhost:3999",
      apiUrl: "http://localhost:3999/api",
      relayUrl: "http://localhost:3999/relay",
      cdnUrl: "http://localhost:3999/cdn",
      shareUrl: "http://localhost:3999/p",
    });
    expect(parseEnv({}).PUBLIC_URL).toBe("http://localhost:3000");
    expect(parseEnv({ PORT: " ", PUBLIC_URL: "" }).PUBLIC_URL).toBe("http://localhost:3000");
    expect(parseEnv({ PORT: "3999", PUBLIC_URL: "https://media.example.com/" })).toMatchObject({
      PUBLIC_URL: "https://media.example.com",
      cdnUrl: "https://media.example.com/cdn",
    });
    expect(parseEnv({ PORT: "3999", CDN_URL: "https://cdn.example.com" })).toMatchObject({
      PUBLIC_URL: "http://localhost:3999",
      cdnUrl: "https://cdn.example.com",
    });
  });
});

/** An upload through the server; resolves with the reply's links. */
async function uploadLinks(server: TestServer): Promise<{ url: string; share: string }> {
  const database = { env: { DATA_DIR: server.dataDir, DATABASE_URL: "" } };
  await serverUser(database, "port_user");
  const key = (await serverApp(database, "port_user", "Port")).key;
  const body = new FormData();
  body.append("file", new Blob([await readFile(await fixture("pngPlain"))], { type: "image/png" }), "a.png");
  const res = await fetch(`${server.url}/api/upload`, { method: "POST", body, headers: { "api-key": key, "post-privacy": "public" } });
  expect(res.status).toBe(200);
  const reply = (await res.json()) as { url: string; post: { url: string } };
  return { url: reply.url, share: reply.post.url };
}

describe("a server started without PUBLIC_URL", () => {
  let fixed: TestServer;
  let any: TestServer;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    // PUBLIC_URL "" is unset (empty means the default), whatever this shell has.
    [fixed, any] = await Promise.all([
      startTestServer({ PORT: String(port), PUBLIC_URL: "", DATABASE_URL: "" }),
      startTestServer({ PORT: "0", PUBLIC_URL: "", DATABASE_URL: "" }),
    ]);
  }, 180_000);
  afterAll(async () => {
    await Promise.all([fixed?.stop(), any?.stop()]);
  });

  it("PORT=N: every link is at http://localhost:N, and it is this server's file", async () => {
    const { url, share } = await uploadLinks(fixed);
    expect(url).toMatch(new RegExp(`^http://localhost:${port}/cdn/`));
    expect(share).toMatch(new RegExp(`^http://localhost:${port}/p/`));
    const file = await fetch(`${fixed.url}${new URL(url).pathname}`);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("image/png");
  }, 60_000);

  it("PORT=0: the links carry the port the server got", async () => {
    const { url } = await uploadLinks(any);
    const bound = new URL(any.url).port;
    expect(bound).not.toBe("0");
    expect(url).toMatch(new RegExp(`^http://localhost:${bound}/cdn/`));
  }, 60_000);
});
