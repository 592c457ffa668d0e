import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startTestServer, type TestServer } from "../support/server";
import { serverApp, serverUser } from "../support/server-accounts";
import { fixture } from "../support/media";

describe("a ShareX-style upload through the real server", () => {
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    server = await startTestServer({ PORT: String(port), PUBLIC_URL: origin });
    await serverUser(server, "sharex_user");
    key = (await serverApp(server, "sharex_user", "ShareX")).key;
  }, 180_000);
  afterAll(async () => {
    if (server) await server.stop();
  });

  const upload = async (path: string, name: string, headers: Record<string, string> = {}) => {
    const body = new FormData();
    body.append("file", new Blob([await readFile(path)], { type: "image/png" }), name);
    return fetch(`${server.url}/api/upload`, {
      method: "POST",
      body,
      headers: { "api-key": key, "user-agent": "ShareX/16.1.0", ...headers },
    });
  };

  it("uploads an image and the reply's url is a working direct link", async () => {
    const png = await fixture("png");
    const res = await upload(png, "shot.png", { "post-privacy": "unlisted" });
    expect(res.status).toBe(200);
    expect(res.headers.get("request-id")).toMatch(/^[0-9a-f]{32}$/);
    const body = await res.json();
    expect(body.url).toMatch(new RegExp(`^${server.url}/cdn/`));
    expect(body.post.url).toBe(`${server.url}/p/${body.post.code}`);
    const file = await fetch(body.url, {
      headers: { "user-agent": "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0" },
    });
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("image/png");
    expect(file.headers.get("x-content-type-options")).toBe("nosniff");
    expect(file.headers.get("request-id")).toMatch(/^[0-9a-f]{32}$/);
    expect(file.headers.get("content-length")).toBe(String(body.post.files[0].size));
    expect((await file.arrayBuffer()).byteLength).toBe(body.post.files[0].size);
  });

  it("serves videos fast-start with Range and ETag", async () => {
    const res = await upload(await fixture("mp4"), "clip.mp4", { "post-privacy": "public" });
    const body = await res.json();
    expect(res.status, `${JSON.stringify(body)}\n${server.output()}`).toBe(200);
    const video = body.post.files[0];
    expect(video.mime_type).toBe("video/mp4");
    const part = await fetch(video.url, { headers: { range: "bytes=0-99" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 0-99/${video.size}`);
    expect(part.headers.get("content-length")).toBe("100");
    expect(part.headers.get("x-mediahost-content-length")).toBeNull();
    expect((await part.arrayBuffer()).byteLength).toBe(100);
    const etag = part.headers.get("etag")!;
    expect((await fetch(video.url, { headers: { "if-none-match": etag } })).status).toBe(304);
  });

  // A small image is converted and answered from memory, a video through temporary files.
  it.each([
    ["png", "shot.png", "webp", "shot.webp", "image/webp"],
    ["mp4", "clip.mp4", "mp3", "clip.mp3", "audio/mpeg"],
  ] as const)("converts %s with the Content-Length of the attachment on the wire", async (name, filename, target, attachment, mime) => {
    const body = new FormData();
    body.append("file", new Blob([await readFile(await fixture(name))]), filename);
    const res = await fetch(`${server.url}/api/convert`, { method: "POST", body, headers: { "api-key": key, "convert-target": target } });
    expect(res.status).toBe(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(res.headers.get("content-length")).toBe(String(bytes.length));
    expect(res.headers.get("content-type")).toBe(mime);
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${attachment}"`);
    if (target === "webp") expect(bytes.toString("latin1", 8, 12)).toBe("WEBP");
    else expect(bytes.toString("latin1", 0, 3) === "ID3" || bytes[0] === 0xff).toBe(true);
  });

  it("answers errors before any handler as JSON", async () => {
    const noKey = await fetch(`${server.url}/api/upload`, { method: "POST" });
    expect(noKey.status).toBe(401);
    expect((await noKey.json()).error.type).toBe("unauthorized");
    const unknown = await fetch(`${server.url}/api/nope/deeper`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("content-type")).toMatch(/^application\/json/);
    const wrong = await fetch(`${server.url}/api/upload`, { method: "GET", headers: { "api-key": key } });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toContain("POST");
    const relay = await fetch(`${server.url}/relay/discover/`);
    expect(relay.status).toBe(401);
    expect((await relay.json()).error.type).toBe("unauthorized");
  });

  // The fast lane (lib/server/fast-lane.ts) serves /api, /relay and /cdn without Next.
  it("sends JSON with its Content-Length, and HEAD of a file without a body", async () => {
    const post = (await (await upload(await fixture("png"), "head.png", { "post-privacy": "public" })).json()).post;
    const res = await fetch(`${server.url}/api/posts/${post.code}`, { headers: { "api-key": key } });
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-length")).toBe(String(Buffer.byteLength(text)));
    const head = await fetch(post.files[0].url, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(post.files[0].size));
    expect((await head.arrayBuffer()).byteLength).toBe(0);
  });

  it("answers a JSON body over 1 MB with 413 instead of dropping the connection", async () => {
    // Chunked, so the size is only known while reading: the reply must still arrive.
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ >= 40) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const res = await fetch(`${server.url}/relay/auth/login`, {
      method: "POST",
      body,
      headers: { "content-type": "application/json" },
      duplex: "half",
    } as RequestInit & { duplex: "half" });
    expect(res.status).toBe(413);
    expect((await res.json()).error.type).toBe("file_too_large");
  });

  it("stops serving a file unsigned the moment its post turns private", async () => {
    const post = (await (await upload(await fixture("png"), "turn.png", { "post-privacy": "public" })).json()).post;
    const publicUrl = post.files[0].url as string;
    for (let i = 0; i < 3; i++) expect((await fetch(publicUrl)).status).toBe(200);
    const galleryKey = (await serverApp(server, "sharex_user", "Gallery", { galleryAccess: true })).key as string;
    const patched = await fetch(`${server.url}/api/posts/${post.code}`, {
      method: "PATCH",
      headers: { "api-key": galleryKey, "content-type": "application/json" },
      body: JSON.stringify({ privacy: "private" }),
    });
    expect(patched.status).toBe(200);
    expect([403, 404]).toContain((await fetch(publicUrl)).status);
    const signed = (await patched.json()).post.files[0].url as string;
    expect(signed).toContain("sig=");
    expect((await fetch(signed)).status).toBe(200);
  });
});
