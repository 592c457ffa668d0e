/**
 * DELIVERY_OFFLOAD=x-accel (docs/delivery-offload.md) on the production server, asked
 * directly (the X-Accel-Redirect answer: headers, no body) and through Debian's nginx with
 * the internal location docs/operations.md gives (tests/support/nginx.ts): every /cdn rule
 * still holds (signature, privacy, moderation, view limits and expiry, range validity), and
 * what nginx sends is byte for byte the stored file with the service's headers.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startNginx, type Nginx } from "../support/nginx";
import { freePort, startTestServer, type TestServer } from "../support/server";

const run = promisify(execFile);
const PREFIX = "/_protected/";
/** A person's browser: robots and prefetches spend no view (docs/expiry.md). */
const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36";

interface PostJson {
  code: string;
  files: { url: string; name: string }[];
}

/** A noise JPEG of about 300 KB (several of nginx's and our reads). */
function jpeg(): Promise<Buffer> {
  return sharp({
    create: { width: 700, height: 500, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma: 60 } },
  })
    .jpeg({ quality: 95 })
    .toBuffer();
}

describe("DELIVERY_OFFLOAD=x-accel, directly and behind nginx", () => {
  let server: TestServer;
  let nginx: Nginx;
  let key: string;
  let image: Buffer;
  let admin: (...args: string[]) => Promise<Record<string, unknown>>;

  beforeAll(async () => {
    const port = await freePort();
    server = await startTestServer({
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      DELIVERY_OFFLOAD: "x-accel",
      X_ACCEL_PREFIX: PREFIX,
      UPLOAD_FILES: "media,text",
      // The last view a limit allows expires the post at once.
      VIEW_LIMIT_GRACE_SECONDS: "0",
    });
    nginx = await startNginx({ upstream: server.url, offload: { prefix: PREFIX, filesDir: join(server.dataDir, "files") } });
    admin = async (...args: string[]) =>
      JSON.parse(
        (await run(process.execPath, ["scripts/launch.mjs", "admin", ...args], { env: { ...process.env, ...server.env } })).stdout,
      ) as Record<string, unknown>;
    await admin("user", "create", "--username", "offload", "--plan", "ultra");
    key = (await admin("app", "create", "--user", "offload", "--name", "Offload", "--gallery-access")).key as string;
    image = await jpeg();
  }, 300_000);
  afterAll(async () => {
    await nginx?.stop();
    await server?.stop();
  });

  const path = (url: string): string => {
    const u = new URL(url);
    return u.pathname + u.search;
  };
  async function get(base: string, target: string, headers: Record<string, string> = {}, method = "GET"): Promise<Response> {
    try {
      return await fetch(`${base}${target}`, { method, headers });
    } catch {
      // Once more: a pooled connection the server has just closed as idle.
      return fetch(`${base}${target}`, { method, headers });
    }
  }
  const direct = (target: string, headers?: Record<string, string>, method?: string) => get(server.url, target, headers, method);
  const proxied = (target: string, headers?: Record<string, string>, method?: string) => get(nginx.url, target, headers, method);
  async function upload(bytes: Buffer, name: string, type: string, headers: Record<string, string> = {}): Promise<PostJson> {
    const send = (): Promise<Response> => {
      const form = new FormData();
      form.append("file", new Blob([new Uint8Array(bytes)], { type }), name);
      return fetch(`${server.url}/api/upload`, {
        method: "POST",
        headers: { "api-key": key, "post-privacy": "public", ...headers },
        body: form,
      });
    };
    // Once more when a pooled connection the server has just closed as idle fails (EPIPE).
    const res = await send().catch(send);
    const text = await res.text();
    expect(res.status, text).toBe(200);
    return (JSON.parse(text) as { post: PostJson }).post;
  }
  /** The stored file the X-Accel-Redirect names (nginx's alias of DATA_DIR/files). */
  function stored(accel: string | null): Buffer {
    expect(accel).toMatch(new RegExp(`^${PREFIX}[A-Za-z0-9_./-]+$`));
    return readFileSync(join(server.dataDir, "files", accel!.slice(PREFIX.length)));
  }
  const errorType = async (res: Response): Promise<string> => ((await res.json()) as { error: { type: string } }).error.type;

  it("directly: a 200 with the file's headers, no body and X-Accel-Redirect; HEAD, 304 and 416 are the service's own", async () => {
    const post = await upload(image, "photo.jpg", "image/jpeg");
    const url = path(post.files[0].url);
    const res = await direct(url);
    expect(res.status).toBe(200);
    expect(await res.arrayBuffer()).toHaveProperty("byteLength", 0);
    expect(res.headers.get("content-length")).toBe("0");
    expect(res.headers.get("content-type")).toBe("image/jpeg");
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, s-maxage=60, immutable");
    expect(res.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const file = stored(res.headers.get("x-accel-redirect"));
    const etag = res.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-z-]+"$/);

    // HEAD carries no bytes: answered as without offload.
    const head = await direct(url, {}, "HEAD");
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(file.length));
    expect(head.headers.get("x-accel-redirect")).toBeNull();

    const notModified = await direct(url, { "if-none-match": etag });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get("x-accel-redirect")).toBeNull();

    // A valid range is the proxy's to send; an unsatisfiable one is our 416.
    const ranged = await direct(url, { range: "bytes=10-19" });
    expect(ranged.status).toBe(200);
    expect(ranged.headers.get("x-accel-redirect")).toBe(`${PREFIX}${ranged.headers.get("x-accel-redirect")!.slice(PREFIX.length)}`);
    await ranged.arrayBuffer();
    const past = await direct(url, { range: `bytes=${file.length}-` });
    expect(past.status).toBe(416);
    expect(past.headers.get("content-range")).toBe(`bytes */${file.length}`);
    expect(past.headers.get("x-accel-redirect")).toBeNull();

    // What a proxy would judge otherwise stays with the service: If-Range, a reversed range.
    const ifRange = await direct(url, { range: "bytes=0-9", "if-range": etag });
    expect(ifRange.status).toBe(206);
    expect(ifRange.headers.get("x-accel-redirect")).toBeNull();
    expect(Buffer.from(await ifRange.arrayBuffer())).toEqual(file.subarray(0, 10));
    const reversed = await direct(url, { range: "bytes=9-0" });
    expect(reversed.status).toBe(200);
    expect(reversed.headers.get("x-accel-redirect")).toBeNull();
    expect(Buffer.from(await reversed.arrayBuffer())).toEqual(file);
  });

  it("directly: refusals answer as without offload (no signature 403, wrong path 404)", async () => {
    const post = await upload(image, "secret.jpg", "image/jpeg", { "post-privacy": "private" });
    const signed = path(post.files[0].url);
    const bare = signed.slice(0, signed.indexOf("?"));
    const refused = await direct(bare);
    expect(refused.status).toBe(403);
    expect(refused.headers.get("x-accel-redirect")).toBeNull();
    expect(await errorType(refused)).toBe("forbidden");
    const ok = await direct(signed);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("cache-control")).toMatch(/^private, max-age=\d+$/);
    stored(ok.headers.get("x-accel-redirect"));
    const missing = await direct(`/cdn/${post.code}/nope.jpg`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get("x-accel-redirect")).toBeNull();
  });

  it("through nginx: a public file arrives byte for byte with the service's headers; 304 and ranges", async () => {
    const post = await upload(image, "public.jpg", "image/jpeg");
    const url = path(post.files[0].url);
    const file = stored((await direct(url)).headers.get("x-accel-redirect"));
    const ours = await direct(url, {}, "HEAD");

    const res = await proxied(url);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(file);
    expect(res.headers.get("x-accel-redirect")).toBeNull();
    expect(res.headers.get("content-length")).toBe(String(file.length));
    for (const name of [
      "content-type",
      "cache-control",
      "etag",
      "last-modified",
      "x-content-type-options",
      "content-security-policy",
      "cross-origin-resource-policy",
      "access-control-allow-origin",
    ]) {
      expect(res.headers.get(name), name).toBe(ours.headers.get(name));
    }
    expect(res.headers.get("request-id")).toMatch(/^[0-9a-f]{32}$/);

    const notModified = await proxied(url, { "if-none-match": ours.headers.get("etag")! });
    expect(notModified.status).toBe(304);
    expect(await notModified.text()).toBe("");

    const range = await proxied(url, { range: "bytes=1000-70999" });
    expect(range.status).toBe(206);
    expect(range.headers.get("content-range")).toBe(`bytes 1000-70999/${file.length}`);
    expect(Buffer.from(await range.arrayBuffer())).toEqual(file.subarray(1000, 71000));
    const suffix = await proxied(url, { range: "bytes=-100" });
    expect(suffix.status).toBe(206);
    expect(Buffer.from(await suffix.arrayBuffer())).toEqual(file.subarray(file.length - 100));
    const past = await proxied(url, { range: `bytes=${file.length + 5}-` });
    expect(past.status).toBe(416);
    expect(past.headers.get("content-range")).toBe(`bytes */${file.length}`);
    await past.arrayBuffer();
  });

  it("through nginx: a private file needs its signature; a text file keeps its kind's headers (the general lane)", async () => {
    const post = await upload(image, "private.jpg", "image/jpeg", { "post-privacy": "private" });
    const signed = path(post.files[0].url);
    const refused = await proxied(signed.slice(0, signed.indexOf("?")));
    expect(refused.status).toBe(403);
    expect(await errorType(refused)).toBe("forbidden");
    const forged = await proxied(signed.replace(/sig=[^&]+/, `sig=${"A".repeat(43)}`));
    expect(forged.status).toBe(403);
    await forged.arrayBuffer();
    const file = stored((await direct(signed)).headers.get("x-accel-redirect"));
    const ok = await proxied(signed);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("cache-control")).toMatch(/^private, max-age=\d+$/);
    expect(Buffer.from(await ok.arrayBuffer())).toEqual(file);

    const text = "offloaded text, ünïcödé\n".repeat(50);
    const paste = await upload(Buffer.from(text), "notes.txt", "text/plain");
    const res = await proxied(path(paste.files[0].url));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(res.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
    expect(await res.text()).toBe(text);
  });

  it("through nginx: a moderated post's file is refused at once", async () => {
    const post = await upload(image, "moderated.jpg", "image/jpeg");
    const url = path(post.files[0].url);
    const before = await proxied(url);
    expect(before.status).toBe(200);
    await before.arrayBuffer();
    await admin("post", "moderate", "--code", post.code);
    const res = await proxied(url);
    expect(res.status).toBe(403);
    expect(await errorType(res)).toBe("moderated");
  });

  it("through nginx: a view-limited post's files need a signature, and its last view expires them", async () => {
    const post = await upload(image, "limited.jpg", "image/jpeg", { "max-views": "1" });
    const signed = path(post.files[0].url);
    expect(signed).toContain("sig=");
    const bare = await proxied(signed.slice(0, signed.indexOf("?")));
    expect(bare.status).toBe(403);
    await bare.arrayBuffer();
    const ok = await proxied(signed);
    expect(ok.status).toBe(200);
    await ok.arrayBuffer();

    // Someone else's view is the last one (VIEW_LIMIT_GRACE_SECONDS=0): the post expires now.
    const page = await fetch(`${server.url}/p/${post.code}`, { headers: { "user-agent": BROWSER } });
    expect(page.status).toBe(200);
    await page.text();
    const gone = await proxied(signed);
    expect(gone.status).toBe(404);
    expect(await errorType(gone)).toBe("not_found");
  });
});
