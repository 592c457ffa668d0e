/** serveObject against the disk adapter with real bytes. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveObject, type ServeOptions } from "@/lib/delivery/serve";
import { DiskStorage } from "@/lib/storage/disk";
import type { ObjectInfo } from "@/lib/storage/types";

const root = mkdtempSync(join(tmpdir(), "mediahost-serve-"));
const store = new DiskStorage(root);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const DATA = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
const KEY = "f/post1/file1.mp4";
let info: ObjectInfo;

beforeAll(async () => {
  info = await store.putBuffer(KEY, DATA, "video/mp4");
  await store.putBuffer("f/post1/page.html", Buffer.from("<script>alert(1)</script>"), "text/html");
  await store.putBuffer("f/post1/blob", Buffer.from("??"), "application/x-unknown");
  await store.putBuffer("f/post1/img.png", Buffer.from("png"), "image/png");
});

const NOW = 1_800_000_000;
const base: ServeOptions = { key: KEY, contentType: "video/mp4", immutable: true, storage: store, now: NOW };

function serve(headers: Record<string, string> = {}, opts: Partial<ServeOptions> = {}, method = "GET"): Promise<Response> {
  return serveObject(new Request(`http://localhost/cdn/${KEY}`, { method, headers }), { ...base, ...opts });
}

const body = async (res: Response) => Buffer.from(await res.arrayBuffer());

function expectFileHeaders(res: Response): void {
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  expect(res.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
  expect(res.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
}

describe("serveObject: whole files", () => {
  it("GET streams the file with every header", async () => {
    const res = await serve();
    expect(res.status).toBe(200);
    expect((await body(res)).equals(DATA)).toBe(true);
    expect(res.headers.get("content-type")).toBe("video/mp4");
    expect(res.headers.get("content-length")).toBe("1000");
    expect(res.headers.get("accept-ranges")).toBe("bytes");
    expect(res.headers.get("etag")).toBe(info.etag);
    expect(res.headers.get("last-modified")).toBe(info.lastModified.toUTCString());
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, s-maxage=60, immutable");
    expect(res.headers.get("content-disposition")).toBeNull();
    expectFileHeaders(res);
  });

  it("HEAD: the same headers and no body (a Range is ignored)", async () => {
    for (const headers of [{}, { range: "bytes=0-9" }] as Record<string, string>[]) {
      const res = await serve(headers, {}, "HEAD");
      expect(res.status).toBe(200);
      expect(res.body).toBeNull();
      expect(res.headers.get("content-length")).toBe("1000");
      expect(res.headers.get("etag")).toBe(info.etag);
      expect(res.headers.get("accept-ranges")).toBe("bytes");
      expectFileHeaders(res);
    }
  });

  it("other methods: 405 with Allow", async () => {
    const res = await serve({}, {}, "POST");
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD");
  });

  it("a missing object: 404 JSON not_found (GET), empty 404 (HEAD)", async () => {
    const res = await serve({}, { key: "f/post1/nope.mp4" });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ error: { type: "not_found", message: expect.any(String) } });
    expectFileHeaders(res);
    const ranged = await serve({ range: "bytes=0-1" }, { key: "f/post1/nope.mp4" });
    expect(ranged.status).toBe(404);
    const head = await serve({}, { key: "f/post1/nope.mp4" }, "HEAD");
    expect(head.status).toBe(404);
    expect(head.body).toBeNull();
  });
});

describe("serveObject: ranges", () => {
  const cases: [string, number, number][] = [
    ["bytes=0-0", 0, 0], // first byte
    ["bytes=999-999", 999, 999], // last byte
    ["bytes=100-199", 100, 199], // middle
    ["bytes=-10", 990, 999], // suffix
    ["bytes=-5000", 0, 999], // suffix longer than the file
    ["bytes=990-", 990, 999], // open-ended
    ["bytes=995-5000", 995, 999], // end clamped
    ["Bytes = 10 - 12", 10, 12], // case and spaces tolerated
  ];
  for (const [range, start, end] of cases) {
    it(`${range} → 206 bytes ${start}-${end}`, async () => {
      const res = await serve({ range });
      expect(res.status).toBe(206);
      expect(res.headers.get("content-range")).toBe(`bytes ${start}-${end}/1000`);
      expect(res.headers.get("content-length")).toBe(String(end - start + 1));
      expect(res.headers.get("content-type")).toBe("video/mp4");
      expect(res.headers.get("etag")).toBe(info.etag);
      expect((await body(res)).equals(DATA.subarray(start, end + 1))).toBe(true);
      expectFileHeaders(res);
    });
  }

  it("unsatisfiable ranges: 416 with Content-Range bytes */size", async () => {
    for (const range of ["bytes=1000-", "bytes=1000-1001", "bytes=-0"]) {
      const res = await serve({ range });
      expect(res.status, range).toBe(416);
      expect(res.headers.get("content-range")).toBe("bytes */1000");
      expect((await body(res)).length).toBe(0);
      expectFileHeaders(res);
    }
  });

  it("several ranges, or a header we cannot parse: the whole file with 200", async () => {
    for (const range of ["bytes=0-1,5-6", "bytes=abc", "items=0-1", "bytes=5-2", "bytes=-"]) {
      const res = await serve({ range });
      expect(res.status, range).toBe(200);
      expect(res.headers.get("content-length")).toBe("1000");
      expect((await body(res)).equals(DATA)).toBe(true);
    }
  });

  it("If-Range: a matching ETag or date keeps the range, anything else gets the whole file", async () => {
    const hit = await serve({ range: "bytes=0-9", "if-range": info.etag });
    expect(hit.status).toBe(206);
    const byDate = await serve({ range: "bytes=0-9", "if-range": info.lastModified.toUTCString() });
    expect(byDate.status).toBe(206);
    for (const stale of ['"something-else"', `W/${info.etag}`, "Thu, 01 Jan 2015 00:00:00 GMT"]) {
      const res = await serve({ range: "bytes=0-9", "if-range": stale });
      expect(res.status, stale).toBe(200);
      expect((await body(res)).length).toBe(1000);
    }
  });
});

describe("serveObject: revalidation", () => {
  it("If-None-Match with the ETag (also weak, in a list, or *) → 304 without a body", async () => {
    for (const value of [info.etag, `W/${info.etag}`, `"x", ${info.etag}`, "*"]) {
      const res = await serve({ "if-none-match": value });
      expect(res.status, value).toBe(304);
      expect(res.body).toBeNull();
      expect(res.headers.get("etag")).toBe(info.etag);
      expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, s-maxage=60, immutable");
      expectFileHeaders(res);
    }
  });

  it("If-None-Match wins over Range", async () => {
    const res = await serve({ "if-none-match": info.etag, range: "bytes=0-9" });
    expect(res.status).toBe(304);
  });

  it("a different ETag → 200 with the file", async () => {
    const res = await serve({ "if-none-match": '"other"' });
    expect(res.status).toBe(200);
    expect((await body(res)).equals(DATA)).toBe(true);
  });

  it("If-Modified-Since: 304 when not modified since, 200 otherwise; ignored next to If-None-Match", async () => {
    const later = new Date(info.lastModified.getTime() + 60_000).toUTCString();
    expect((await serve({ "if-modified-since": later })).status).toBe(304);
    expect((await serve({ "if-modified-since": "Thu, 01 Jan 2015 00:00:00 GMT" })).status).toBe(200);
    expect((await serve({ "if-modified-since": later, "if-none-match": '"other"' })).status).toBe(200);
  });
});

describe("serveObject: caching and types", () => {
  it("signed files are cached privately until the signature expires, never beyond 24 hours", async () => {
    const at = async (opts: Partial<ServeOptions>) => (await serve({}, { immutable: false, ...opts })).headers.get("cache-control");
    expect(await at({ expiresAt: NOW + 100 })).toBe("private, max-age=100");
    expect(await at({ expiresAt: NOW - 5 })).toBe("private, max-age=0");
    expect(await at({ expiresAt: NOW + 10 * 86_400 })).toBe("private, max-age=86400");
    expect(await at({})).toBe("private, no-cache");
  });

  it("HTML is sent as an octet-stream attachment, never as HTML", async () => {
    const res = await serve({}, { key: "f/post1/page.html", contentType: "text/html" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/octet-stream");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="page.html"; filename*=UTF-8''page.html`);
    expectFileHeaders(res);
  });

  it("unknown and scriptable types are attachments too; so are ranges and HEAD of them", async () => {
    for (const contentType of ["application/x-unknown", "image/svg+xml", "text/plain", "application/javascript", ""]) {
      const res = await serve({}, { key: "f/post1/blob", contentType });
      expect(res.headers.get("content-type"), contentType).toBe("application/octet-stream");
      expect(res.headers.get("content-disposition"), contentType).toMatch(/^attachment; filename="blob"/);
    }
    const ranged = await serve({ range: "bytes=0-0" }, { key: "f/post1/page.html", contentType: "text/html" });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get("content-type")).toBe("application/octet-stream");
    expect(ranged.headers.get("content-disposition")).toMatch(/^attachment/);
  });

  it("media types are inline; a download name is offered, with an RFC 6266 UTF-8 form", async () => {
    const res = await serve({}, { key: "f/post1/img.png", contentType: "Image/PNG", downloadName: 'cat "meme" ü.png' });
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("content-disposition")).toBe(
      `inline; filename="cat _meme_ _.png"; filename*=UTF-8''cat%20%22meme%22%20%C3%BC.png`,
    );
  });

  it("a client that stops reading releases the file", async () => {
    const res = await serve();
    const reader = res.body!.getReader();
    await reader.read();
    await reader.cancel();
    // The key can still be deleted and re-served afterwards (no stuck stream state).
    const again = await serve({ range: "bytes=0-3" });
    expect((await body(again)).equals(DATA.subarray(0, 4))).toBe(true);
  });
});

describe("serveObject: an object replaced between stat and open", () => {
  /** Wraps the disk store so that `open` reports another ETag the first `flips` times. */
  function flipping(flips: number) {
    let left = flips;
    const wrapped: ServeOptions["storage"] = {
      kind: "disk",
      putFile: store.putFile.bind(store),
      putBuffer: store.putBuffer.bind(store),
      stat: store.stat.bind(store),
      delete: store.delete.bind(store),
      deletePrefix: store.deletePrefix.bind(store),
      deleteAbandoned: store.deleteAbandoned.bind(store),
      async open(key, range) {
        const object = await store.open(key, range);
        if (object && left-- > 0) return { ...object, etag: '"replaced"' };
        return object;
      },
    };
    return wrapped;
  }

  it("retries once, then serves consistent bytes", async () => {
    const res = await serve({ range: "bytes=0-9" }, { storage: flipping(1) });
    expect(res.status).toBe(206);
    expect((await body(res)).equals(DATA.subarray(0, 10))).toBe(true);
  });

  it("gives up with 503 unavailable if it keeps changing", async () => {
    const res = await serve({ range: "bytes=0-9" }, { storage: flipping(5) });
    expect(res.status).toBe(503);
    expect((await res.json()).error.type).toBe("unavailable");
  });
});
