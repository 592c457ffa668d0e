/**
 * The two pure functions both /cdn lanes share (docs/architecture.md, "A /cdn request's
 * path"): what a path names, and the delivery rules in their order. The lanes' answers
 * are tested end to end in tests/delivery/cdn-lane.test.ts, tests/posts/visibility.test.ts
 * and tests/hls/hls.test.ts.
 */
import { describe, expect, it } from "vitest";
import { parseCdnPath } from "@/lib/delivery/cdn-path";
import { decideDelivery, REFUSALS, type DeliveryFile } from "@/lib/delivery/decide";
import { signPath } from "@/lib/crypto/signing";

const NOW = Date.UTC(2030, 0, 1);
const NOW_S = NOW / 1000;

const file = (over: Partial<DeliveryFile> = {}): DeliveryFile => ({
  storageKey: "f/k1/a.png",
  thumbnailKey: "f/k1/a.thumb.jpg",
  mimeType: "image/png",
  signed: false,
  moderated: false,
  expiresAt: null,
  ...over,
});

const target = (path: string) => {
  const parsed = parseCdnPath(path);
  if (parsed.kind !== "original" && parsed.kind !== "thumb" && parsed.kind !== "rendition") throw new Error(parsed.kind);
  return parsed;
};

describe("parseCdnPath", () => {
  it("names each kind of target, keeping the signed path as requested", () => {
    expect(parseCdnPath("abc/a%20b.png")).toEqual({ kind: "original", code: "abc", name: "a b.png", signedPath: "abc/a%20b.png" });
    expect(parseCdnPath("abc/thumbs/a.png.jpg")).toMatchObject({ kind: "thumb", code: "abc", name: "a.png" });
    expect(parseCdnPath("abc/r/320/a.png.webp")).toMatchObject({ kind: "rendition", code: "abc", name: "a.png", width: 320 });
    expect(parseCdnPath("abc/hls/a.mp4/master.m3u8")).toMatchObject({ kind: "hls", code: "abc", name: "a.mp4", asset: "master.m3u8" });
    expect(parseCdnPath("u/avatars/x.PNG")).toEqual({ kind: "user", key: "u/avatars/x.PNG", contentType: "image/png" });
  });

  it("names nothing for other paths, with the rendition widths when one is asked for", () => {
    for (const path of ["", "abc", "abc/x/y", "abc/%zz", "u/avatars/x.svg", "a/b/c/d/e"]) {
      expect(parseCdnPath(path), path).toEqual({ kind: "none", message: "No such file." });
    }
    expect(parseCdnPath("abc/r/300/a.webp")).toEqual({
      kind: "none",
      message: "No such rendition: the widths are 320, 640, 960 and 1280, as WebP.",
    });
  });
});

describe("decideDelivery", () => {
  it("serves a public file immutable, its thumbnail and its rendition", () => {
    expect(decideDelivery(target("abc/a.png"), "", file(), NOW)).toEqual({
      kind: "serve",
      key: "f/k1/a.png",
      contentType: "image/png",
      cacheUntil: undefined,
    });
    expect(decideDelivery(target("abc/thumbs/a.png.jpg"), "", file(), NOW)).toMatchObject({
      key: "f/k1/a.thumb.jpg",
      contentType: "image/jpeg",
    });
    expect(decideDelivery(target("abc/r/320/a.png.webp"), "", file(), NOW)).toMatchObject({
      contentType: "image/webp",
      make: { sourceKey: "f/k1/a.png", width: 320, fileKey: "f/k1/a.png" },
    });
  });

  it("refuses in order: missing, expired, bad signature, moderated", () => {
    const refused = (path: string, f: DeliveryFile | null, query = "") => {
      const d = decideDelivery(target(path), query, f, NOW);
      return d.kind === "refuse" ? d.reason : d.kind;
    };
    expect(refused("abc/a.png", null)).toBe("missing");
    expect(refused("abc/thumbs/a.png.jpg", file({ thumbnailKey: null }))).toBe("missing");
    expect(refused("abc/r/320/a.zip.webp", file({ mimeType: "application/zip", thumbnailKey: null }))).toBe("missing");
    expect(refused("abc/a.png", file({ expiresAt: NOW, signed: true, moderated: true }))).toBe("expired");
    expect(refused("abc/a.png", file({ signed: true, moderated: true }), "exp=1&sig=x")).toBe("bad_signature");
    expect(refused("abc/a.png", file({ moderated: true }))).toBe("moderated");
    expect(REFUSALS.bad_signature.error).toBe("forbidden");
  });

  it("a signed file is cached until its signature or its post expires, whichever is first", () => {
    const exp = NOW_S + 3600;
    const query = signPath("abc/a.png", exp).slice(1);
    expect(decideDelivery(target("abc/a.png"), query, file({ signed: true }), NOW)).toMatchObject({ kind: "serve", cacheUntil: exp });
    const soon = NOW + 60_000;
    expect(decideDelivery(target("abc/a.png"), query, file({ signed: true, expiresAt: soon }), NOW)).toMatchObject({
      cacheUntil: soon / 1000,
    });
  });
});
