/** The small pieces of POST /convert on their own: target header, file name, time limit, file stream. */
import { open, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { convertTimeoutMs, DEFAULT_CONVERT_TIMEOUT_SECONDS } from "@/lib/convert/config";
import { READ_CHUNK_BYTES, streamFileHandle } from "@/lib/convert/file-stream";
import { attachmentFilename, contentDisposition, MAX_BASE_NAME_LENGTH } from "@/lib/convert/filename";
import { parseConvertTarget } from "@/lib/convert/target";
import { DomainError } from "@/lib/errors";
import { scratchDir } from "../support/media";

describe("parseConvertTarget", () => {
  it("accepts the seven targets, trimmed and in any case", () => {
    for (const t of ["png", "jpeg", "webp", "avif", "gif", "mp4", "mp3"]) expect(parseConvertTarget(` ${t.toUpperCase()}\t`)).toBe(t);
  });

  it.each([null, "", " ", "jpg", "jpe", "heic", "toString", "__proto__", "p ng"])("refuses %j with invalid_request", (value) => {
    const attempt = () => parseConvertTarget(value);
    expect(attempt).toThrow(DomainError);
    try {
      attempt();
    } catch (e) {
      expect((e as DomainError).type).toBe("invalid_request");
    }
  });
});

describe("attachmentFilename", () => {
  it.each([
    ["photo.jpg", "png", "photo.png"],
    ["archive.tar.gz", "mp4", "archive.tar.mp4"],
    ["Report v1.2 final", "png", "Report v1.2 final.png"], // "2 final" is not an extension
    ["no-extension", "gif", "no-extension.gif"],
    ["/home/me/pic.webp", "avif", "pic.avif"],
    ["C:\\pics\\pic.webp", "avif", "pic.avif"],
    ["  spaced   out  .png", "webp", "spaced out.webp"],
    ["...hidden.png", "png", "hidden.png"],
    [".bashrc", "png", "bashrc.png"],
    ["trailing dots...png", "png", "trailing dots.png"],
    ["a:b*c?d<e>f|g.png", "png", "a_b_c_d_e_f_g.png"],
    ["tab\there\r\nnewline.png", "png", "tabherenewline.png"], // control characters are dropped
    ["evil\u202Egnp.exe", "png", "evilgnp.png"],
    ["CON.png", "png", "_CON.png"],
    ["lpt1", "png", "_lpt1.png"],
    ["", "mp3", "converted.mp3"],
    ["...", "mp3", "converted.mp3"],
    ["\u0000\u0001", "mp3", "converted.mp3"],
    ["Cafe\u0301.png", "png", "Caf\u00e9.png"], // NFC
  ])("%j + %s → %j", (name, ext, expected) => {
    expect(attachmentFilename(name, ext)).toBe(expected);
  });

  it("cuts long names at a code point boundary", () => {
    const name = attachmentFilename(`${"😀".repeat(150)}.png`, "webp");
    expect(Array.from(name.replace(/\.webp$/, ""))).toHaveLength(MAX_BASE_NAME_LENGTH);
    expect(name).toBe(`${"😀".repeat(MAX_BASE_NAME_LENGTH)}.webp`);
  });
});

describe("contentDisposition", () => {
  it("plain ASCII names need no filename*", () => {
    expect(contentDisposition("holiday photo.png")).toBe('attachment; filename="holiday photo.png"');
  });

  it("non-ASCII names get an ASCII fallback and RFC 5987 filename*", () => {
    expect(contentDisposition("naïve café.jpg")).toBe(
      "attachment; filename=\"naive cafe.jpg\"; filename*=UTF-8''na%C3%AFve%20caf%C3%A9.jpg",
    );
    expect(contentDisposition("日本.gif")).toBe("attachment; filename=\"__.gif\"; filename*=UTF-8''%E6%97%A5%E6%9C%AC.gif");
  });

  it("escapes what RFC 5987 attr-char does not allow, and keeps % out of the fallback", () => {
    expect(contentDisposition("it's (1)*.png")).toBe('attachment; filename="it\'s (1)*.png"');
    expect(contentDisposition("50% (é).png")).toBe("attachment; filename=\"50_ (e).png\"; filename*=UTF-8''50%25%20%28%C3%A9%29.png");
  });

  it("never lets a quote or backslash into the quoted value", () => {
    const header = contentDisposition('a"b\\c.png');
    expect(header.startsWith('attachment; filename="a_b_c.png"')).toBe(true);
  });
});

describe("convertTimeoutMs", () => {
  it("defaults to 120 s; unset and empty mean the default", () => {
    expect(DEFAULT_CONVERT_TIMEOUT_SECONDS).toBe(120);
    expect(convertTimeoutMs({})).toBe(120_000);
    expect(convertTimeoutMs({ CONVERT_TIMEOUT_SECONDS: " " })).toBe(120_000);
  });

  it("reads seconds, decimals allowed", () => {
    expect(convertTimeoutMs({ CONVERT_TIMEOUT_SECONDS: "30" })).toBe(30_000);
    expect(convertTimeoutMs({ CONVERT_TIMEOUT_SECONDS: "0.5" })).toBe(500);
  });

  it.each(["0", "-1", "abc", "Infinity"])("refuses %j loudly", (value) => {
    expect(() => convertTimeoutMs({ CONVERT_TIMEOUT_SECONDS: value })).toThrow(/CONVERT_TIMEOUT_SECONDS/);
  });
});

describe("streamFileHandle", () => {
  async function fileOf(bytes: Buffer): Promise<string> {
    const path = join(await scratchDir(), "data.bin");
    await writeFile(path, bytes);
    return path;
  }
  const isClosed = async (handle: Awaited<ReturnType<typeof open>>) =>
    handle.stat().then(
      () => false,
      () => true,
    );

  it("sends exactly size bytes in chunks, from an unlinked file, and closes it", async () => {
    const bytes = Buffer.alloc(READ_CHUNK_BYTES * 2 + 123, 9);
    const path = await fileOf(bytes);
    const handle = await open(path, "r");
    await unlink(path);
    const sizes: number[] = [];
    const got: Buffer[] = [];
    for await (const chunk of streamFileHandle(handle, bytes.length) as unknown as AsyncIterable<Uint8Array>) {
      sizes.push(chunk.length);
      got.push(Buffer.from(chunk));
    }
    expect(sizes).toEqual([READ_CHUNK_BYTES, READ_CHUNK_BYTES, 123]);
    expect(Buffer.concat(got).equals(bytes)).toBe(true);
    expect(await isClosed(handle)).toBe(true);
  });

  it("an empty file is an empty body", async () => {
    const handle = await open(await fileOf(Buffer.alloc(0)), "r");
    expect(Buffer.from(await new Response(streamFileHandle(handle, 0)).arrayBuffer()).length).toBe(0);
    expect(await isClosed(handle)).toBe(true);
  });

  it("a file shorter than announced errors the stream rather than sending less than Content-Length", async () => {
    const handle = await open(await fileOf(Buffer.alloc(100, 1)), "r");
    await expect(new Response(streamFileHandle(handle, 200)).arrayBuffer()).rejects.toThrow();
    expect(await isClosed(handle)).toBe(true);
  });

  it("cancel and abort close the handle", async () => {
    const path = await fileOf(Buffer.alloc(READ_CHUNK_BYTES * 3));
    const a = await open(path, "r");
    const reader = streamFileHandle(a, READ_CHUNK_BYTES * 3).getReader();
    await reader.read();
    await reader.cancel();
    expect(await isClosed(a)).toBe(true);

    const b = await open(path, "r");
    const controller = new AbortController();
    streamFileHandle(b, READ_CHUNK_BYTES * 3, controller.signal);
    controller.abort();
    await new Promise((r) => setTimeout(r, 20));
    expect(await isClosed(b)).toBe(true);

    const c = await open(path, "r");
    streamFileHandle(c, 10, AbortSignal.abort());
    await new Promise((r) => setTimeout(r, 20));
    expect(await isClosed(c)).toBe(true);
  });
});
