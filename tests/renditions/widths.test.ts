/** The rendition rules that need no server: widths offered, URL segments, storage keys (docs/renditions.md). */
import { describe, expect, it } from "vitest";
import { offeredRenditions, parseRenditionSegments, renditionKey, renditionKeys, renditionSourceKey } from "@/lib/renditions";

describe("offeredRenditions", () => {
  it("offers every width for wide sources and never upscales narrow ones", () => {
    expect(offeredRenditions(1920)).toEqual([
      { width: 320, pixels: 320 },
      { width: 640, pixels: 640 },
      { width: 960, pixels: 960 },
      { width: 1280, pixels: 1280 },
    ]);
    expect(offeredRenditions(1280)).toEqual([
      { width: 320, pixels: 320 },
      { width: 640, pixels: 640 },
      { width: 960, pixels: 960 },
      { width: 1280, pixels: 1280 },
    ]);
    expect(offeredRenditions(1000)).toEqual([
      { width: 320, pixels: 320 },
      { width: 640, pixels: 640 },
      { width: 960, pixels: 960 },
      { width: 1280, pixels: 1000 },
    ]);
    expect(offeredRenditions(641)).toEqual([
      { width: 320, pixels: 320 },
      { width: 640, pixels: 640 },
      { width: 960, pixels: 641 },
    ]);
    expect(offeredRenditions(960)).toEqual([
      { width: 320, pixels: 320 },
      { width: 640, pixels: 640 },
      { width: 960, pixels: 960 },
    ]);
    expect(offeredRenditions(961)).toEqual([
      { width: 320, pixels: 320 },
      { width: 640, pixels: 640 },
      { width: 960, pixels: 960 },
      { width: 1280, pixels: 961 },
    ]);
    expect(offeredRenditions(640)).toEqual([
      { width: 320, pixels: 320 },
      { width: 640, pixels: 640 },
    ]);
    expect(offeredRenditions(500)).toEqual([
      { width: 320, pixels: 320 },
      { width: 640, pixels: 500 },
    ]);
    expect(offeredRenditions(320)).toEqual([{ width: 320, pixels: 320 }]);
    expect(offeredRenditions(64)).toEqual([{ width: 320, pixels: 64 }]);
  });
  it("assumes the nominal widths when the source's width is unknown", () => {
    expect(offeredRenditions(null)).toEqual([
      { width: 320, pixels: 320 },
      { width: 640, pixels: 640 },
      { width: 960, pixels: 960 },
      { width: 1280, pixels: 1280 },
    ]);
  });
});

describe("parseRenditionSegments", () => {
  it("reads r/<width>/<name>.webp", () => {
    expect(parseRenditionSegments(["r", "320", "a.png.webp"])).toEqual({ kind: "rendition", name: "a.png", width: 320 });
    expect(parseRenditionSegments(["r", "640", "clip.mp4.webp"])).toEqual({ kind: "rendition", name: "clip.mp4", width: 640 });
    expect(parseRenditionSegments(["r", "960", "a.jpg.webp"])).toEqual({ kind: "rendition", name: "a.jpg", width: 960 });
    expect(parseRenditionSegments(["r", "1280", "a.jpg.webp"])).toEqual({ kind: "rendition", name: "a.jpg", width: 1280 });
  });
  it("calls unknown widths and extensions bad, other paths not renditions", () => {
    for (const rest of [
      ["r", "100", "a.webp"],
      ["r", "0320", "a.webp"],
      ["r", "320", "a.png"],
      ["r", "320", ".webp"],
      ["r", "", "a.webp"],
    ]) {
      expect(parseRenditionSegments(rest), rest.join("/")).toEqual({ kind: "bad" });
    }
    expect(parseRenditionSegments(["a.png"])).toBeNull();
    expect(parseRenditionSegments(["thumbs", "a.mp4.jpg"])).toBeNull();
    expect(parseRenditionSegments(["hls", "a.mp4", "master.m3u8"])).toBeNull();
  });
});

describe("keys and sources", () => {
  it("stores renditions beside the original, one key per width", () => {
    expect(renditionKey("p/post1/file1.png", 320)).toBe("p/post1/file1.w320.webp");
    expect(renditionKeys("p/post1/file1.mp4")).toEqual([
      "p/post1/file1.w320.webp",
      "p/post1/file1.w640.webp",
      "p/post1/file1.w960.webp",
      "p/post1/file1.w1280.webp",
    ]);
  });
  it("makes images from themselves, videos from their still, nothing else", () => {
    expect(renditionSourceKey({ storageKey: "p/x/f.png", thumbnailKey: null, mimeType: "image/png" })).toBe("p/x/f.png");
    expect(renditionSourceKey({ storageKey: "p/x/f.mp4", thumbnailKey: "p/x/f.thumb.jpg", mimeType: "video/mp4" })).toBe("p/x/f.thumb.jpg");
    expect(renditionSourceKey({ storageKey: "p/x/f.mp3", thumbnailKey: null, mimeType: "audio/mpeg" })).toBeNull();
  });
});
