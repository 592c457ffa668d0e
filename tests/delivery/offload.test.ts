/**
 * The delivery offload's own rules (lib/delivery/offload.ts) and serveObject in x-accel mode
 * against the disk adapter: what the proxy is left to send, and what stays the service's.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/config/env";
import { checkSettings } from "@/lib/server/settings";
import { offloadOf, proxyMaySend, REDIRECT_MAX_SECONDS, redirectSeconds, type Offload } from "@/lib/delivery/offload";
import { serveObject, type ServeOptions } from "@/lib/delivery/serve";
import { DiskStorage } from "@/lib/storage/disk";

describe("offload settings", () => {
  it("off unless set; x-accel needs disk storage, redirect needs S3; the prefix is a folder path", () => {
    expect(offloadOf(parseEnv({}))).toEqual({ mode: "off" });
    expect(offloadOf(parseEnv({ DELIVERY_OFFLOAD: "x-accel" }))).toEqual({ mode: "x-accel", prefix: "/_protected/" });
    expect(offloadOf(parseEnv({ DELIVERY_OFFLOAD: "x-accel", X_ACCEL_PREFIX: "/internal/files/" }))).toEqual({
      mode: "x-accel",
      prefix: "/internal/files/",
    });
    expect(offloadOf(parseEnv({ DELIVERY_OFFLOAD: "redirect", STORAGE: "s3", S3_PUBLIC_URL: "https://cdn.example.com/media/" }))).toEqual({
      mode: "redirect",
      publicUrl: "https://cdn.example.com/media",
    });
    expect(() => offloadOf(parseEnv({ DELIVERY_OFFLOAD: "redirect" }))).toThrow(/DELIVERY_OFFLOAD: redirect needs STORAGE=s3/);
    expect(() => offloadOf(parseEnv({ DELIVERY_OFFLOAD: "x-accel", STORAGE: "s3" }))).toThrow(/x-accel needs STORAGE=disk/);
    expect(() => parseEnv({ DELIVERY_OFFLOAD: "sendfile" })).toThrow(/off, x-accel or redirect/);
    for (const prefix of ["_protected/", "/_protected", "/a b/", "/../"]) expect(() => parseEnv({ X_ACCEL_PREFIX: prefix })).toThrow();
    expect(() => parseEnv({ S3_PUBLIC_URL: "ftp://example.com" })).toThrow(/http\(s\) URL/);
  });

  it("a start with a mode that does not fit the storage stops, naming the setting", () => {
    expect(() => checkSettings({ DELIVERY_OFFLOAD: "redirect", DATA_DIR: tmpdir() })).toThrow(/Invalid setting DELIVERY_OFFLOAD/);
  });
});

describe("proxyMaySend", () => {
  const none = { range: undefined, ifRange: undefined, ifMatch: undefined, ifUnmodifiedSince: undefined };
  const partial = { kind: "partial", range: { start: 0, end: 9 } } as const;
  it("the whole file, or one plainly written range the service would send", () => {
    expect(proxyMaySend(none, { kind: "full" })).toBe(true);
    for (const range of ["bytes=0-9", "bytes=10-", "bytes=-10"]) expect(proxyMaySend({ ...none, range }, partial)).toBe(true);
  });
  it("not what a proxy would judge otherwise: If-Range, If-Match, If-Unmodified-Since, ranges answered whole or written loosely", () => {
    expect(proxyMaySend({ ...none, ifRange: '"x"' }, { kind: "full" })).toBe(false);
    expect(proxyMaySend({ ...none, ifMatch: "*" }, { kind: "full" })).toBe(false);
    expect(proxyMaySend({ ...none, ifUnmodifiedSince: "Thu, 01 Jan 1970 00:00:00 GMT" }, { kind: "full" })).toBe(false);
    expect(proxyMaySend({ ...none, range: "bytes=9-0" }, { kind: "full" })).toBe(false);
    expect(proxyMaySend({ ...none, range: "bytes=0-1,5-6" }, { kind: "full" })).toBe(false);
    expect(proxyMaySend({ ...none, range: "bytes = 0-9" }, partial)).toBe(false);
    expect(proxyMaySend({ ...none, range: "BYTES=0-9" }, partial)).toBe(false);
    expect(proxyMaySend({ ...none, range: "bytes=99-" }, { kind: "unsatisfiable" })).toBe(false);
  });
});

describe("redirectSeconds", () => {
  it("until the signature or post expires, capped; at least a second", () => {
    expect(redirectSeconds(undefined, 1000)).toBe(REDIRECT_MAX_SECONDS);
    expect(redirectSeconds(1600, 1000)).toBe(600);
    expect(redirectSeconds(1000 + 10 * REDIRECT_MAX_SECONDS, 1000)).toBe(REDIRECT_MAX_SECONDS);
    expect(redirectSeconds(900, 1000)).toBe(1);
  });
});

describe("serveObject with X-Accel-Redirect (disk)", () => {
  const root = mkdtempSync(join(tmpdir(), "mediahost-offload-"));
  const store = new DiskStorage(root);
  const DATA = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
  const KEY = "f/post1/clip.mp4";
  const offload: Offload = { mode: "x-accel", prefix: "/_protected/" };
  const NOW = 1_800_000_000;
  const base: ServeOptions = { key: KEY, contentType: "video/mp4", immutable: true, storage: store, now: NOW, offload };
  const serve = (headers: Record<string, string> = {}, opts: Partial<ServeOptions> = {}, method = "GET") =>
    serveObject(new Request(`http://localhost/cdn/x/${KEY}`, { method, headers }), { ...base, ...opts });

  beforeAll(async () => {
    await store.putBuffer(KEY, DATA, "video/mp4");
    await store.putBuffer("f/post1/notes", Buffer.from("hello"), "text/plain");
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("a 200 or a valid range: the file's headers, no body, the file named for the proxy", async () => {
    const plain = await serve();
    for (const res of [plain, await serve({ range: "bytes=0-99" })]) {
      expect(res.status).toBe(200);
      expect(res.body).toBeNull();
      expect(res.headers.get("x-accel-redirect")).toBe(`/_protected/${KEY}`);
      expect(res.headers.get("content-length")).toBe("0");
      expect(res.headers.get("content-type")).toBe("video/mp4");
      expect(res.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
      expect(res.headers.get("etag")).toMatch(/^"/);
      expect(res.headers.get("content-range")).toBeNull();
    }
  });

  it("signed files keep private caching; a kind's type and disposition ride along", async () => {
    const signed = await serve({}, { immutable: false, expiresAt: NOW + 60 });
    expect(signed.headers.get("cache-control")).toBe("private, max-age=60");
    const text = await serve(
      {},
      {
        key: "f/post1/notes",
        contentType: "text/plain",
        resolved: { contentType: "text/plain; charset=utf-8", inline: true },
        downloadName: "notes.txt",
      },
    );
    expect(text.headers.get("x-accel-redirect")).toBe("/_protected/f/post1/notes");
    expect(text.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(text.headers.get("content-disposition")).toBe(`inline; filename="notes.txt"; filename*=UTF-8''notes.txt`);
  });

  it("HEAD, 304, 416 and what a proxy would judge otherwise are the service's own answers", async () => {
    const etag = (await serve()).headers.get("etag")!;
    const head = await serve({}, {}, "HEAD");
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe("1000");
    expect(head.headers.get("x-accel-redirect")).toBeNull();
    expect((await serve({ "if-none-match": etag })).status).toBe(304);
    const past = await serve({ range: "bytes=1000-" });
    expect(past.status).toBe(416);
    expect(past.headers.get("x-accel-redirect")).toBeNull();
    const ifRange = await serve({ range: "bytes=0-9", "if-range": etag });
    expect(ifRange.status).toBe(206);
    expect(Buffer.from(await ifRange.arrayBuffer())).toEqual(DATA.subarray(0, 10));
    const multiple = await serve({ range: "bytes=0-1,5-6" });
    expect(multiple.status).toBe(200);
    expect(Buffer.from(await multiple.arrayBuffer())).toEqual(DATA);
    expect(multiple.headers.get("x-accel-redirect")).toBeNull();
  });

  it("off (the default) and on other storage: the bytes as always", async () => {
    const off = await serve({}, { offload: { mode: "off" } });
    expect(off.headers.get("x-accel-redirect")).toBeNull();
    expect(Buffer.from(await off.arrayBuffer())).toEqual(DATA);
    const redirectOnDisk = await serve({}, { offload: { mode: "redirect", publicUrl: null } });
    expect(redirectOnDisk.status).toBe(200);
    expect(Buffer.from(await redirectOnDisk.arrayBuffer())).toEqual(DATA);
  });
});
