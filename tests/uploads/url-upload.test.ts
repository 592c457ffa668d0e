/**
 * Uploads from a URL on the real server (docs/url-uploads.md): a local origin serves the
 * files; WEBHOOK_ALLOW_PRIVATE allows 127.0.0.1 alone (as the webhook tests do), so every
 * other private address stays refused. Redirects are limited and each hop is checked, a file
 * over the plan's limit and an origin too slow are refused with the cause in words, and the
 * type comes from the bytes, never from the origin's Content-Type or the URL's name.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createApiClient } from "@/sdk/src/node";
import { fixture } from "../support/media";
import { startTestServer, type TestServer } from "../support/server";
import { serverApp, serverUser } from "../support/server-accounts";

const LIMIT = 256 * 1024;
const TIMEOUT_MS = 1500;

/** The reply, or its error: the tests read one or the other. */
interface UploadBody {
  post: { files: { name: string; mime_type: string; kind: string; url: string }[] };
  failed?: { index: number; error: { type: string } }[];
  error: { type: string; message: string };
}

interface Origin {
  url: string;
  port: number;
  hits: string[];
  close(): Promise<void>;
}

/** The origin the server fetches from: each path one behaviour. */
async function startOrigin(png: Buffer): Promise<Origin> {
  const hits: string[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const drip = (res: ServerResponse) => {
    res.writeHead(200, { "content-type": "application/octet-stream" });
    res.write(png.subarray(0, 16));
    const timer = setInterval(() => res.write(Buffer.alloc(1)), 200);
    timers.add(timer);
    res.on("close", () => clearInterval(timer));
  };
  const server: Server = createServer((req, res) => {
    const path = req.url ?? "/";
    hits.push(path);
    if (path === "/cat.png") return res.writeHead(200, { "content-type": "image/png" }).end(png);
    // No extension, a lying Content-Type: the bytes decide.
    if (path === "/download") return res.writeHead(200, { "content-type": "text/plain" }).end(png);
    if (path === "/named") return res.writeHead(200, { "content-disposition": 'attachment; filename="holiday.png"' }).end(png);
    const hops = /^\/hop\/(\d+)$/.exec(path);
    if (hops) {
      const left = Number(hops[1]);
      return res.writeHead(302, { location: left > 1 ? `/hop/${left - 1}` : "/cat.png" }).end();
    }
    if (path === "/to-private") return res.writeHead(301, { location: "http://10.1.2.3/secret.png" }).end();
    if (path === "/big-declared") return res.writeHead(200, { "content-length": String(LIMIT * 4) }).end(Buffer.alloc(LIMIT * 4));
    if (path === "/big-chunked") {
      res.writeHead(200);
      for (let i = 0; i < 8; i++) res.write(Buffer.alloc(LIMIT / 2));
      return res.end();
    }
    if (path === "/slow") return drip(res);
    if (path === "/empty") return res.writeHead(200).end();
    res.writeHead(404).end("no");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hits,
    close: () =>
      new Promise((resolve) => {
        for (const t of timers) clearInterval(t);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("upload from a URL", () => {
  let server: TestServer;
  let origin: Origin;
  let key: string;
  let png: Buffer;

  beforeAll(async () => {
    png = await readFile(await fixture("pngPlain"));
    origin = await startOrigin(png);
    server = await startTestServer({
      WEBHOOK_ALLOW_PRIVATE: "127.0.0.1",
      URL_UPLOAD_TIMEOUT_MS: String(TIMEOUT_MS),
      URL_UPLOAD_MAX_REDIRECTS: "2",
      PLAN_FREE_UPLOAD_FILE_MAX: String(LIMIT),
    });
  });
  // An account per test: more than 8 uploads in a second would suspend one (the abuse safeguard).
  let accounts = 0;
  beforeEach(async () => {
    const name = `fetcher${++accounts}`;
    await serverUser(server, name);
    key = (await serverApp(server, name, "tool")).key;
  });
  afterAll(async () => {
    await origin?.close();
    await server?.stop();
  });

  async function upload(fields: [string, string | Blob, string?][], headers: Record<string, string> = {}) {
    const body = new FormData();
    for (const [name, value, filename] of fields) {
      if (typeof value === "string") body.append(name, value);
      else body.append(name, value, filename);
    }
    const res = await fetch(`${server.url}/api/upload`, { method: "POST", headers: { "api-key": key, ...headers }, body });
    return { status: res.status, body: (await res.json()) as UploadBody };
  }

  it("stores the file a URL points at, typed from its bytes", async () => {
    const { status, body } = await upload([["url", `${origin.url}/cat.png`]], { "post-privacy": "unlisted" });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.post.files[0]).toMatchObject({ mime_type: "image/png", width: 64, height: 48, name: "cat.png" });
    const stored = await fetch(body.post.files[0].url);
    expect(stored.status).toBe(200);
  });

  it("takes the type from the bytes and the name from Content-Disposition", async () => {
    const plain = await upload([["url", `${origin.url}/download`]]);
    expect(plain.status, JSON.stringify(plain.body)).toBe(200);
    expect(plain.body.post.files[0]).toMatchObject({ mime_type: "image/png", kind: "image" });
    const named = await upload([["url", `${origin.url}/named`]]);
    expect(named.body.post.files[0].name).toBe("holiday.png");
  });

  it("mixes file parts and URLs in their order, as one album", async () => {
    const { status, body } = await upload([
      ["file", new Blob([new Uint8Array(png)]), "first.png"],
      ["url", `${origin.url}/cat.png`],
    ]);
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.post.files.map((f: { name: string }) => f.name)).toEqual(["first.png", "cat.png"]);
  });

  it("follows redirects up to the limit, and no further", async () => {
    const ok = await upload([["url", `${origin.url}/hop/2`]]);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const tooMany = await upload([["url", `${origin.url}/hop/3`]]);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatchObject({ type: "invalid_request", message: expect.stringContaining("redirected more than 2 times") });
  });

  it("refuses private addresses, at the first hop and after a redirect, without connecting", async () => {
    for (const target of [`http://127.0.0.2:${origin.port}/cat.png`, "http://169.254.169.254/latest/meta-data", "http://[::1]/x"]) {
      const { status, body } = await upload([["url", target]]);
      expect(status, target).toBe(400);
      expect(body.error.type, target).toBe("invalid_request");
      expect(body.error.message, target).toMatch(/private, loopback or link-local/);
    }
    const before = origin.hits.length;
    const redirected = await upload([["url", `${origin.url}/to-private`]]);
    expect(redirected.status).toBe(400);
    expect(redirected.body.error.message).toContain("10.1.2.3");
    expect(origin.hits.slice(before)).toEqual(["/to-private"]);
  });

  it("refuses a file over the plan's limit, declared or not", async () => {
    for (const path of ["/big-declared", "/big-chunked"]) {
      const { status, body } = await upload([["url", `${origin.url}${path}`]]);
      expect(status, path).toBe(413);
      expect(body.error, path).toMatchObject({ type: "file_too_large", message: expect.stringContaining("upload URL") });
    }
  });

  it("gives up on an origin too slow, naming the time limit", async () => {
    const started = Date.now();
    const { status, body } = await upload([["url", `${origin.url}/slow`]]);
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ type: "invalid_request", message: expect.stringContaining(`within ${TIMEOUT_MS} ms`) });
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 10_000);
  });

  it("answers bad URLs and bad origins with invalid_request naming the cause", async () => {
    const cases: [string, RegExp][] = [
      ["ftp://example.com/a.png", /https:\/\/ or http:\/\//],
      ["not a url", /not a valid URL/],
      [`http://user:pw@127.0.0.1:${origin.port}/cat.png`, /user name or password/],
      [`${origin.url}/missing`, /answered HTTP 404/],
      [`${origin.url}/empty`, /empty file/],
      [`http://127.0.0.1:1/cat.png`, /could not be reached/],
      ["http://no-such-host.invalid/a.png", /does not resolve/],
    ];
    for (const [url, message] of cases) {
      const { status, body } = await upload([["url", url]]);
      expect(status, url).toBe(400);
      expect(body.error.type, url).toBe("invalid_request");
      expect(body.error.message, url).toMatch(message);
    }
  });

  it("reports a failed URL beside a stored file, as a failed part", async () => {
    const { status, body } = await upload([
      ["url", `${origin.url}/missing`],
      ["url", `${origin.url}/cat.png`],
    ]);
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.post.files).toHaveLength(1);
    expect(body.failed).toEqual([expect.objectContaining({ index: 0, error: expect.objectContaining({ type: "invalid_request" }) })]);
  });

  it("is what the SDK sends for { url }", async () => {
    const api = createApiClient({ baseUrl: `${server.url}/api`, apiKey: key });
    const reply = await api.upload([{ url: `${origin.url}/named` }], { privacy: "unlisted" });
    expect("post" in reply && reply.post.files[0].name).toBe("holiday.png");
  });

  it("still answers a body with neither file nor URL as before", async () => {
    const { status, body } = await upload([["title", "nothing"]]);
    expect(status).toBe(400);
    expect(body.error.type).toBe("invalid_request");
  });
});
