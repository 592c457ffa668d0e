/**
 * /cdn files through the production server's hit path (lib/server/cdn-lane.ts: Node's
 * request and response, cached descriptors, header blocks built once per file). Every
 * delivery rule must hold on the wire exactly as on the general path: request-id, the
 * hardening and CORS headers, ETag/304, Range/206/416, If-Range, HEAD, signed URLs, and
 * privacy, deletion and moderation seen at once although the descriptor is cached.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startTestServer, type TestServer } from "../support/server";

const run = promisify(execFile);

interface PostJson {
  code: string;
  privacy: string;
  files: { url: string; name: string }[];
}

/** A noise JPEG: `big` makes one over the lane's single-read size (256 KiB), so it streams. */
async function jpeg(big: boolean): Promise<Buffer> {
  const size = big ? { width: 700, height: 500, sigma: 60, quality: 95 } : { width: 64, height: 48, sigma: 10, quality: 80 };
  return sharp({
    create: {
      width: size.width,
      height: size.height,
      channels: 3,
      background: "#808080",
      noise: { type: "gaussian", mean: 128, sigma: size.sigma },
    },
  })
    .jpeg({ quality: size.quality })
    .toBuffer();
}

describe("/cdn hit path on the production server", () => {
  let server: TestServer;
  let key: string;
  let admin: (...args: string[]) => Promise<Record<string, unknown>>;

  beforeAll(async () => {
    const port = await freePort();
    server = await startTestServer({ PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, DATABASE_URL: "" });
    admin = async (...args: string[]) =>
      JSON.parse(
        (
          await run(process.execPath, ["scripts/launch.mjs", "admin", ...args], {
            env: { ...process.env, DATA_DIR: server.dataDir, DATABASE_URL: "" },
          })
        ).stdout,
      ) as Record<string, unknown>;
    await admin("user", "create", "--username", "cdn_lane", "--plan", "ultra");
    key = (await admin("app", "create", "--user", "cdn_lane", "--name", "Lane", "--gallery-access")).key as string;
  }, 240_000);
  afterAll(async () => {
    if (server) await server.stop();
  });

  async function get(path: string, headers: Record<string, string> = {}, method = "GET", signal?: AbortSignal): Promise<Response> {
    try {
      return await fetch(`${server.url}${path}`, { method, headers, signal });
    } catch {
      // Once more: fetch may reuse a pooled connection the server has just closed as idle
      // (its keep-alive timeout), which a slow, loaded machine makes likely.
      return fetch(`${server.url}${path}`, { method, headers, signal });
    }
  }
  const path = (url: string) => {
    const u = new URL(url);
    return u.pathname + u.search;
  };
  async function upload(bytes: Buffer, privacy: string): Promise<PostJson> {
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(bytes)], { type: "image/jpeg" }), "photo.jpg");
    const res = await fetch(`${server.url}/api/upload`, {
      method: "POST",
      headers: { "api-key": key, "post-privacy": privacy },
      body: form,
    });
    const json = (await res.json()) as { post: PostJson };
    expect(res.status).toBe(200);
    return json.post;
  }
  const api = (method: string, route: string, body?: unknown) =>
    fetch(`${server.url}/api${route}`, {
      method,
      headers: { "api-key": key, ...(body ? { "content-type": "application/json" } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });

  function expectFileHeaders(res: Response): void {
    expect(res.headers.get("request-id")).toMatch(/^[0-9a-f]{32}$/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
    expect(res.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("accept-ranges")).toBe("bytes");
    expect(res.headers.get("etag")).toMatch(/^"[0-9a-z]+-[0-9a-z]+-[0-9a-z]+"$/);
    expect(res.headers.get("last-modified")).toMatch(/GMT$/);
  }

  it("a public file: 200 with every header, the same bytes from the cached descriptor, a new request-id each time", async () => {
    const post = await upload(await jpeg(false), "public");
    const url = path(post.files[0].url);
    const first = await get(url);
    const bytes = Buffer.from(await first.arrayBuffer());
    expect(first.status).toBe(200);
    expectFileHeaders(first);
    expect(first.headers.get("content-type")).toBe("image/jpeg");
    expect(first.headers.get("cache-control")).toBe("public, max-age=31536000, s-maxage=60, immutable");
    expect(Number(first.headers.get("content-length"))).toBe(bytes.length);
    expect(bytes.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));

    const second = await get(url);
    expect(Buffer.from(await second.arrayBuffer())).toEqual(bytes);
    expect(second.headers.get("etag")).toBe(first.headers.get("etag"));
    expect(second.headers.get("request-id")).not.toBe(first.headers.get("request-id"));

    const head = await get(url, {}, "HEAD");
    expect(head.status).toBe(200);
    expectFileHeaders(head);
    expect(head.headers.get("content-length")).toBe(String(bytes.length));
    expect(await head.text()).toBe("");
  });

  it("validators: If-None-Match and If-Modified-Since give 304 with no body; If-None-Match wins over Range", async () => {
    const post = await upload(await jpeg(false), "public");
    const url = path(post.files[0].url);
    const full = await get(url);
    await full.arrayBuffer();
    const etag = full.headers.get("etag")!;

    const byTag = await get(url, { "if-none-match": `W/${etag}` });
    expect(byTag.status).toBe(304);
    expectFileHeaders(byTag);
    expect(byTag.headers.get("content-type")).toBeNull();
    expect(await byTag.text()).toBe("");

    const byDate = await get(url, { "if-modified-since": full.headers.get("last-modified")! });
    expect(byDate.status).toBe(304);
    await byDate.arrayBuffer();
    const older = await get(url, { "if-modified-since": new Date(0).toUTCString() });
    expect(older.status).toBe(200);
    await older.arrayBuffer();

    const tagOverRange = await get(url, { "if-none-match": etag, range: "bytes=0-9" });
    expect(tagOverRange.status).toBe(304);
    await tagOverRange.arrayBuffer();
    const otherTag = await get(url, { "if-none-match": '"other"' });
    expect(otherTag.status).toBe(200);
    await otherTag.arrayBuffer();
  });

  it("ranges: 206 with Content-Range (read whole and streamed), 416 past the end, If-Range that does not match gets 200", async () => {
    const post = await upload(await jpeg(true), "public");
    const url = path(post.files[0].url);
    const whole = Buffer.from(await (await get(url)).arrayBuffer());
    expect(whole.length).toBeGreaterThan(256 * 1024);
    const size = whole.length;

    const small = await get(url, { range: "bytes=0-99" });
    expect(small.status).toBe(206);
    expectFileHeaders(small);
    expect(small.headers.get("content-range")).toBe(`bytes 0-99/${size}`);
    expect(small.headers.get("content-length")).toBe("100");
    expect(Buffer.from(await small.arrayBuffer())).toEqual(whole.subarray(0, 100));

    // Longer than one read: streamed from the cached descriptor at an offset.
    const streamed = await get(url, { range: "bytes=1000-" });
    expect(streamed.status).toBe(206);
    expect(streamed.headers.get("content-range")).toBe(`bytes 1000-${size - 1}/${size}`);
    expect(Buffer.from(await streamed.arrayBuffer())).toEqual(whole.subarray(1000));

    const suffix = await get(url, { range: "bytes=-10" });
    expect(suffix.status).toBe(206);
    expect(Buffer.from(await suffix.arrayBuffer())).toEqual(whole.subarray(size - 10));

    const past = await get(url, { range: `bytes=${size}-` });
    expect(past.status).toBe(416);
    expectFileHeaders(past);
    expect(past.headers.get("content-range")).toBe(`bytes */${size}`);
    expect(await past.text()).toBe("");

    const stale = await get(url, { range: "bytes=0-9", "if-range": '"not-the-tag"' });
    expect(stale.status).toBe(200);
    expect(Buffer.from(await stale.arrayBuffer())).toEqual(whole);
    const current = await get(url, { range: "bytes=0-9", "if-range": small.headers.get("etag")! });
    expect(current.status).toBe(206);
    await current.arrayBuffer();
    // An upload of a noise image is slow on a loaded machine; nothing here is timed.
  }, 120_000);

  it("a client that leaves mid-body leaves the cached descriptor intact for everyone after it", async () => {
    const post = await upload(await jpeg(true), "public");
    const url = path(post.files[0].url);
    const whole = Buffer.from(await (await get(url)).arrayBuffer());
    for (let i = 0; i < 5; i++) {
      // Read the first chunk of a streamed range, then hang up.
      const controller = new AbortController();
      const res = await get(url, { range: "bytes=0-" }, "GET", controller.signal);
      const reader = res.body!.getReader();
      await reader.read();
      controller.abort();
      await reader.cancel().catch(() => {});
    }
    for (let i = 0; i < 3; i++) {
      const again = await get(url, { range: "bytes=0-" });
      expect(again.status).toBe(206);
      expect(Buffer.from(await again.arrayBuffer())).toEqual(whole);
    }
  }, 120_000);

  it("signed URLs: served with private caching; a wrong, missing or expired signature is 403 forbidden", async () => {
    const post = await upload(await jpeg(false), "private");
    const url = path(post.files[0].url);
    const ok = await get(url);
    expect(ok.status).toBe(200);
    expectFileHeaders(ok);
    expect(ok.headers.get("cache-control")).toMatch(/^private, max-age=\d+$/);
    await ok.arrayBuffer();

    const bare = url.slice(0, url.indexOf("?"));
    for (const wrong of [bare, url.replace(/sig=[^&]+/, `sig=${"A".repeat(43)}`), url.replace(/exp=\d+/, "exp=1000000000")]) {
      const res = await get(wrong);
      expect(res.status).toBe(403);
      expect(res.headers.get("request-id")).toMatch(/^[0-9a-f]{32}$/);
      expect(((await res.json()) as { error: { type: string } }).error.type).toBe("forbidden");
    }
  });

  it("a public file made private needs a signature at once, though its descriptor is cached", async () => {
    const post = await upload(await jpeg(false), "public");
    const url = path(post.files[0].url);
    expect((await get(url)).status).toBe(200);
    expect((await get(url)).status).toBe(200);
    const patched = await api("PATCH", `/posts/${post.code}`, { privacy: "private" });
    expect(patched.status).toBe(200);
    const res = await get(url);
    expect(res.status).toBe(403);
    await res.arrayBuffer();
    const signed = ((await patched.json()) as { post: PostJson }).post.files[0].url;
    expect((await get(path(signed))).status).toBe(200);
  });

  it("a deleted post's file is never served again from its cached descriptor", async () => {
    const post = await upload(await jpeg(false), "public");
    const url = path(post.files[0].url);
    for (let i = 0; i < 3; i++) expect((await get(url)).status).toBe(200);
    expect((await api("DELETE", `/posts/${post.code}`)).status).toBe(200);
    const gone = await get(url);
    expect(gone.status).toBe(404);
    expect(((await gone.json()) as { error: { type: string } }).error.type).toBe("not_found");
    const head = await get(url, {}, "HEAD");
    expect(head.status).toBe(404);
  });

  it("moderation by another process (the admin CLI) shows at once", async () => {
    const post = await upload(await jpeg(false), "public");
    const url = path(post.files[0].url);
    expect((await get(url)).status).toBe(200);
    await admin("post", "moderate", "--code", post.code);
    // docs/fast-lane.md: the look-up follows the database's change number, so the request
    // right after the CLI's commit is refused (SQLite's data_version shows it at once).
    const res = await get(url);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe("moderated");
  });

  it("concurrent reads of different files and ranges each get their own bytes (body buffers are reused)", async () => {
    const [a, b] = await Promise.all([upload(await jpeg(true), "public"), upload(await jpeg(true), "public")]);
    const urls = [path(a.files[0].url), path(b.files[0].url)];
    const wholes = await Promise.all(urls.map(async (url) => Buffer.from(await (await get(url)).arrayBuffer())));
    const asks = Array.from({ length: 40 }, (_, i) => {
      const which = i % 2;
      const size = wholes[which].length;
      // Single reads, streamed ranges and whole files, at offsets that differ per request.
      const start = (i * 7919) % (size - 1);
      const end = i % 3 === 0 ? size - 1 : Math.min(size - 1, start + ((i * 104_729) % (300 * 1024)));
      return { which, start, end };
    });
    const replies = await Promise.all(
      asks.map(async ({ which, start, end }) => {
        const res = await get(urls[which], { range: `bytes=${start}-${end}` });
        return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
      }),
    );
    replies.forEach(({ status, bytes }, i) => {
      const { which, start, end } = asks[i];
      expect(status).toBe(206);
      expect(bytes.equals(wholes[which].subarray(start, end + 1)), `request ${i}`).toBe(true);
    });
  }, 120_000);

  it("other methods and unusual paths keep the general path's answers", async () => {
    const post = await upload(await jpeg(false), "public");
    const url = path(post.files[0].url);
    const del = await get(url, {}, "DELETE");
    expect(del.status).toBe(405);
    expect(del.headers.get("allow")).toBe("GET, HEAD");
    await del.arrayBuffer();
    const missing = await get(`/cdn/${post.code}/nope.jpg`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { type: string } }).error.type).toBe("not_found");
    // A percent-encoded name is decoded as on the general path.
    const name = post.files[0].name;
    const encoded = await get(`/cdn/${post.code}/${name.slice(0, -1)}%${name.charCodeAt(name.length - 1).toString(16)}`);
    expect(encoded.status).toBe(200);
    await encoded.arrayBuffer();
  });
});
