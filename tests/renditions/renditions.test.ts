/**
 * Sized renditions on the production server (docs/renditions.md): 320/640 px WebP made on
 * first request, never upscaled, stored once and served with a strong ETag, the original's
 * privacy (signatures) and moderation, deleted with the file; `thumbnail_url` and
 * `renditions` for images in API and Relay replies. Runs on PostgreSQL with TEST_DATABASE_URL.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixture } from "../support/media";
import { adminCli, startTestServer, type TestServer } from "../support/server";
import { serverUser, serverApp, serverSession } from "../support/server-accounts";

interface FileJson {
  name: string;
  url: string;
  mime_type: string;
  width: number;
  thumbnail_url: string | null;
  renditions: { width: number; url: string }[];
}
interface PostJson {
  code: string;
  privacy: string;
  files: FileJson[];
}

/** A noise photo (so WebP cannot shrink it to nothing) of the given size. */
function photo(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma: 40 } } })
    .jpeg({ quality: 85 })
    .toBuffer();
}

/** Every stored rendition of the data directory (relative paths). */
async function storedRenditions(dataDir: string): Promise<string[]> {
  const root = join(dataDir, "files");
  const entries = await readdir(root, { recursive: true }).catch(() => [] as string[]);
  return entries.filter((e) => /\.w\d+\.webp$/.test(e)).sort();
}

describe("renditions", () => {
  let server: TestServer;
  let apiKey: string;
  let relayKey: string;

  beforeAll(async () => {
    server = await startTestServer();
    await serverUser(server, "rendition_owner", "ultra");
    apiKey = (await serverApp(server, "rendition_owner", "Grid", { galleryAccess: true })).key as string;
    relayKey = (await serverSession(server, "rendition_owner")).key as string;
  }, 600_000);
  afterAll(async () => {
    if (server) await server.stop();
  });

  const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));
  async function upload(bytes: Buffer | string, name: string, type: string, privacy = "public"): Promise<PostJson> {
    // More than 8 uploads a second suspends the account (docs/uploads.md).
    await pause(150);
    const data = typeof bytes === "string" ? await readFile(bytes) : bytes;
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(data)], { type }), name);
    const res = await fetch(`${server.url}/api/upload`, {
      method: "POST",
      headers: { "api-key": apiKey, "post-privacy": privacy },
      body: form,
    });
    const json = (await res.json()) as { post: PostJson };
    expect(res.status, JSON.stringify(json)).toBe(200);
    return json.post;
  }
  const local = (url: string): string => {
    const u = new URL(url);
    return `${server.url}${u.pathname}${u.search}`;
  };
  const fetchLocal = (url: string, headers: Record<string, string> = {}) => fetch(local(url), { headers });
  async function errorType(res: Response): Promise<string> {
    return ((await res.json()) as { error: { type: string } }).error.type;
  }

  it("images list 320, 640, 960 and 1280 WebP renditions (the last at the source's width); thumbnail_url is the 640 one", async () => {
    const post = await upload(await photo(1000, 600), "wide.jpg", "image/jpeg");
    const file = post.files[0];
    expect(file.renditions.map((r) => r.width)).toEqual([320, 640, 960, 1000]);
    expect(new URL(file.renditions[0].url).pathname).toBe(`/cdn/${post.code}/r/320/wide.jpg.webp`);
    expect(new URL(file.renditions[1].url).pathname).toBe(`/cdn/${post.code}/r/640/wide.jpg.webp`);
    expect(new URL(file.renditions[2].url).pathname).toBe(`/cdn/${post.code}/r/960/wide.jpg.webp`);
    expect(new URL(file.renditions[3].url).pathname).toBe(`/cdn/${post.code}/r/1280/wide.jpg.webp`);
    expect(file.thumbnail_url).toBe(file.renditions[1].url);

    for (const [index, width, height] of [
      [0, 320, 192],
      [1, 640, 384],
      [2, 960, 576],
      [3, 1000, 600],
    ]) {
      const res = await fetchLocal(file.renditions[index].url);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/webp");
      expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, s-maxage=60, immutable");
      expect(res.headers.get("etag")).toMatch(/^"[^"]+"$/); // strong
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
      expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({ format: "webp", width, height });
    }
  });

  it("is made once: concurrent first requests share one encode, later ones the stored copy (same ETag, 304)", async () => {
    const post = await upload(await photo(900, 900), "square.jpg", "image/jpeg");
    const url = post.files[0].renditions[0].url;
    const before = await storedRenditions(server.dataDir);
    const first = await Promise.all(Array.from({ length: 4 }, () => fetchLocal(url)));
    const etags = new Set(first.map((r) => r.headers.get("etag")));
    expect(first.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(etags.size).toBe(1);
    const bodies = await Promise.all(first.map(async (r) => Buffer.from(await r.arrayBuffer()).toString("base64")));
    expect(new Set(bodies).size).toBe(1);

    const made = (await storedRenditions(server.dataDir)).filter((p) => !before.includes(p));
    expect(made).toHaveLength(1);
    const storedAt = (await stat(join(server.dataDir, "files", made[0]))).mtimeMs;

    const again = await fetchLocal(url);
    expect(again.status).toBe(200);
    expect(again.headers.get("etag")).toBe([...etags][0]);
    await again.arrayBuffer();
    const revalidated = await fetchLocal(url, { "if-none-match": [...etags][0]! });
    expect(revalidated.status).toBe(304);
    expect((await stat(join(server.dataDir, "files", made[0]))).mtimeMs).toBe(storedAt);
  });

  it("never upscales: a narrow image offers one rendition at its own width", async () => {
    const post = await upload(await photo(200, 100), "narrow.jpg", "image/jpeg");
    const file = post.files[0];
    expect(file.renditions).toEqual([{ width: 200, url: expect.stringContaining(`/cdn/${post.code}/r/320/narrow.jpg.webp`) }]);
    expect(file.thumbnail_url).toBe(file.renditions[0].url);
    for (const width of [320, 640, 960, 1280]) {
      const res = await fetch(`${server.url}/cdn/${post.code}/r/${width}/narrow.jpg.webp`);
      expect(res.status).toBe(200);
      const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
      expect([meta.width, meta.height]).toEqual([200, 100]);
    }
  });

  it("keeps animations animated", async () => {
    const post = await upload(await fixture("gifAnimated"), "loop.gif", "image/gif");
    const res = await fetchLocal(post.files[0].renditions[0].url);
    expect(res.status).toBe(200);
    const meta = await sharp(Buffer.from(await res.arrayBuffer()), { animated: true }).metadata();
    expect(meta.format).toBe("webp");
    expect(meta.pages).toBe(5);
    expect(meta.pageHeight).toBe(48);
  });

  it("videos: renditions of the still frame; thumbnail_url stays the JPEG still", async () => {
    const post = await upload(await fixture("mp4"), "clip.mp4", "video/mp4");
    const file = post.files[0];
    expect(file.thumbnail_url).toMatch(/\/thumbs\/clip\.mp4\.jpg$/);
    expect(file.renditions).toEqual([{ width: 320, url: expect.stringMatching(/\/r\/320\/clip\.mp4\.webp$/) }]);
    const res = await fetchLocal(file.renditions[0].url);
    expect(res.status).toBe(200);
    const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["webp", 320, 240]);
  }, 120_000);

  it("answers unknown widths, extensions and files with 404 not_found, never 500", async () => {
    const post = await upload(await photo(400, 300), "some.jpg", "image/jpeg");
    for (const path of [
      `/cdn/${post.code}/r/100/some.jpg.webp`,
      `/cdn/${post.code}/r/0640/some.jpg.webp`,
      `/cdn/${post.code}/r/abc/some.jpg.webp`,
      `/cdn/${post.code}/r/320/some.jpg.png`,
      `/cdn/${post.code}/r/320/.webp`,
      `/cdn/${post.code}/r/320/other.jpg.webp`,
      `/cdn/nopost/r/320/some.jpg.webp`,
      `/cdn/${post.code}/r/320/%E0%A4%A.webp`,
    ]) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status, path).toBe(404);
      expect(await errorType(res), path).toBe("not_found");
    }
  });

  it("private posts: signed rendition URLs, refused without the signature", async () => {
    const post = await upload(await photo(700, 350), "secret.jpg", "image/jpeg", "private");
    const file = post.files[0];
    // 320, 640 and the 960 URL at the source's 700 px.
    expect(file.renditions).toHaveLength(3);
    expect(new URL(file.renditions[2].url).pathname).toBe(`/cdn/${post.code}/r/960/secret.jpg.webp`);
    for (const r of file.renditions) expect(r.url).toMatch(/\?exp=\d+&sig=[\w-]{43}$/);
    expect(file.thumbnail_url).toBe(file.renditions[1].url);

    const unsigned = await fetch(`${server.url}${new URL(file.renditions[0].url).pathname}`);
    expect(unsigned.status).toBe(403);
    expect(await errorType(unsigned)).toBe("forbidden");
    // A signature is for its own path: the 320 one does not open the 640 rendition.
    const other = new URL(file.renditions[0].url);
    const swapped = await fetch(`${server.url}${other.pathname.replace("/r/320/", "/r/640/")}${other.search}`);
    expect(swapped.status).toBe(403);

    const signed = await fetchLocal(file.renditions[0].url);
    expect(signed.status).toBe(200);
    expect(signed.headers.get("cache-control")).toMatch(/^private, max-age=\d+$/);
    await signed.arrayBuffer();
    // Once stored (the fast lane can serve it), still not without the signature.
    const stillUnsigned = await fetch(`${server.url}${new URL(file.renditions[0].url).pathname}`);
    expect(stillUnsigned.status).toBe(403);
  });

  it("moderation hides renditions at once, made or not", async () => {
    const post = await upload(await photo(700, 350), "flagged.jpg", "image/jpeg");
    const [small, large] = post.files[0].renditions;
    expect((await fetchLocal(small.url)).status).toBe(200);
    await adminCli(server, "post", "moderate", "--code", post.code);
    for (const url of [small.url, large.url]) {
      const res = await fetchLocal(url);
      expect(res.status).toBe(403);
      expect(await errorType(res)).toBe("moderated");
    }
    await adminCli(server, "post", "unmoderate", "--code", post.code);
    expect((await fetchLocal(small.url)).status).toBe(200);
  });

  it("deleting the post deletes its renditions", async () => {
    const post = await upload(await photo(800, 400), "gone.jpg", "image/jpeg");
    const before = await storedRenditions(server.dataDir);
    for (const r of post.files[0].renditions) expect((await fetchLocal(r.url)).status).toBe(200);
    const made = (await storedRenditions(server.dataDir)).filter((p) => !before.includes(p));
    expect(made).toHaveLength(3);

    const res = await fetch(`${server.url}/api/posts/${post.code}`, { method: "DELETE", headers: { "api-key": apiKey } });
    expect(res.status).toBe(200);
    const after = await storedRenditions(server.dataDir);
    for (const path of made) expect(after).not.toContain(path);
    for (const r of post.files[0].renditions) expect((await fetchLocal(r.url)).status).toBe(404);
  });

  it("deleting one file of an album deletes that file's renditions only", async () => {
    const post = await upload(await photo(500, 500), "first.jpg", "image/jpeg");
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(await photo(500, 250))], { type: "image/jpeg" }), "second.jpg");
    const added = await fetch(`${server.url}/api/posts/${post.code}/files`, { method: "POST", headers: { "api-key": apiKey }, body: form });
    expect(added.status).toBe(200);
    const album = ((await added.json()) as { post: PostJson }).post;
    const before = await storedRenditions(server.dataDir);
    for (const f of album.files) expect((await fetchLocal(f.renditions[0].url)).status).toBe(200);
    const made = (await storedRenditions(server.dataDir)).filter((p) => !before.includes(p));
    expect(made).toHaveLength(2);

    const second = album.files.find((f) => f.name.startsWith("second"))!;
    const res = await fetch(`${server.url}/api/posts/${post.code}/files/${encodeURIComponent(second.name)}`, {
      method: "DELETE",
      headers: { "api-key": apiKey },
    });
    expect(res.status).toBe(200);
    expect((await fetchLocal(second.renditions[0].url)).status).toBe(404);
    expect((await storedRenditions(server.dataDir)).filter((p) => made.includes(p))).toHaveLength(1);
    expect((await fetchLocal(album.files.find((f) => f.name.startsWith("first"))!.renditions[0].url)).status).toBe(200);
  });

  it("API and Relay replies carry thumbnail_url and renditions for images; the OpenAPI documents describe them", async () => {
    const post = await upload(await photo(640, 480), "both.jpg", "image/jpeg");
    for (const [base, header, key] of [
      ["/api", "api-key", apiKey],
      ["/relay", "relay-key", relayKey],
    ] as const) {
      const res = await fetch(`${server.url}${base}/posts/${post.code}`, { headers: { [header]: key } });
      expect(res.status).toBe(200);
      const file = ((await res.json()) as { post: PostJson }).post.files[0];
      expect(file.thumbnail_url, base).toMatch(new RegExp(`/cdn/${post.code}/r/640/both\\.jpg\\.webp$`));
      expect(
        file.renditions.map((r) => r.width),
        base,
      ).toEqual([320, 640]);

      const doc = (await (await fetch(`${server.url}${base}/openapi.json`)).json()) as {
        components: { schemas: Record<string, { properties: Record<string, { description?: string }> }> };
      };
      const props = doc.components.schemas.File.properties;
      expect(props.thumbnail_url.description, base).toMatch(/Images: the grid-sized WebP rendition/);
      expect(props.renditions, base).toBeDefined();
    }
  });
});
