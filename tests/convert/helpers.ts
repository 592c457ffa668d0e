/** Shared by the POST /convert tests: calling the endpoint for bytes, reading what came back. */
import { existsSync } from "node:fs";
import { readdir, readFile, readlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { db } from "@/lib/db/client";
import { dataDir } from "@/lib/db/config";
import { sniffBuffer } from "@/lib/media";
import { dispatcher } from "@/lib/routes";
import { probeJson, scratchDir, type FixtureName, fixture } from "../support/media";
import { form, type Part } from "../support/multipart";

export interface ConvertReply {
  status: number;
  headers: Headers;
  /** The raw body (binary on success). */
  bytes: Buffer;
  /** The parsed body when it was JSON (errors). */
  json: { error?: { type: string; message: string } } | undefined;
}

export interface ConvertCall {
  key: string;
  /** The convert-target header; omitted when undefined. */
  target?: string;
  body?: BodyInit;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Relay sends the key as relay-key under /relay. */
  surface?: "api" | "relay";
}

/** The Request POST /convert receives (streams need duplex: "half"). */
export function convertRequest(call: ConvertCall): Request {
  const headers = new Headers(call.headers);
  const surface = call.surface ?? "api";
  headers.set(surface === "api" ? "api-key" : "relay-key", call.key);
  headers.set("x-client-ip", "198.51.100.9");
  if (call.target !== undefined) headers.set("convert-target", call.target);
  const init: RequestInit & { duplex?: "half" } = { method: "POST", headers, body: call.body, signal: call.signal };
  if (call.body instanceof ReadableStream) init.duplex = "half";
  return new Request(`http://localhost/${surface}/convert`, init);
}

/**
 * Calls the real dispatcher in-process and reads the whole reply as bytes. A FormData body
 * is sent encoded, with its Content-Length, as curl, ShareX and browsers send files (then
 * a small image conversion takes the in-memory path). convertRequest with a FormData body
 * has no Content-Length: that conversion always goes through temporary files.
 */
export async function postConvert(call: ConvertCall): Promise<ConvertReply> {
  const response = await dispatcher(call.surface ?? "api")(
    convertRequest(call.body instanceof FormData ? await sized(call, call.body) : call),
  );
  const bytes = Buffer.from(await response.arrayBuffer());
  let json: ConvertReply["json"];
  if ((response.headers.get("content-type") ?? "").startsWith("application/json")) json = JSON.parse(bytes.toString("utf8"));
  return { status: response.status, headers: response.headers, bytes, json };
}

/** The call with its form encoded into bytes, Content-Type and Content-Length set. */
async function sized(call: ConvertCall, form: FormData): Promise<ConvertCall> {
  const encoded = new Response(form);
  const body = new Uint8Array(await encoded.arrayBuffer());
  const headers = { "content-type": encoded.headers.get("content-type") ?? "", "content-length": String(body.length), ...call.headers };
  return { ...call, body, headers };
}

/** Sets environment variables for one test body, then restores them. */
export async function withEnv<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** POST /convert with one fixture as the file (named `name`, default `source-<fixture>.<ext>`). */
export async function convertFixture(key: string, name: FixtureName, target: string, fileName?: string): Promise<ConvertReply> {
  const path = await fixture(name);
  const part: Part = { path, name: fileName ?? `source-${name}.${path.split(".").pop()}` };
  return postConvert({ key, target, body: await form([part]) });
}

/**
 * A multipart body written by hand, as curl sends it: the file name in raw UTF-8 with
 * nothing escaped (FormData would percent-encode `"` and line breaks, as browsers do).
 */
export function rawMultipart(
  filename: string,
  bytes: Buffer,
  boundary = "convert-test-boundary",
): { body: Uint8Array<ArrayBuffer>; headers: Record<string, string> } {
  const body = new Uint8Array(
    Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
        "utf8",
      ),
      bytes,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]),
  );
  return { body, headers: { "content-type": `multipart/form-data; boundary=${boundary}` } };
}

export function expectError(reply: ConvertReply, status: number, type: string): void {
  expect(reply.status, reply.bytes.toString("utf8").slice(0, 300)).toBe(status);
  expect(reply.json?.error?.type).toBe(type);
}

export type OutputKind = "png" | "jpeg" | "webp" | "gif" | "avif" | "mp4" | "mp3";

/**
 * The format by the output's magic bytes. sniffBuffer knows the upload types; AVIF (an
 * ISO-BMFF `ftyp` with brand `avif`) and MP3 (ID3 tag or an MPEG audio frame sync) are
 * download-only and checked here directly.
 */
export function magicOf(bytes: Buffer): OutputKind | null {
  if (bytes.length >= 12 && bytes.toString("latin1", 4, 8) === "ftyp") {
    const boxSize = bytes.readUInt32BE(0);
    const brands = [bytes.toString("latin1", 8, 12)];
    for (let at = 16; at + 4 <= Math.min(boxSize, bytes.length); at += 4) brands.push(bytes.toString("latin1", at, at + 4));
    if (brands.includes("avif")) return "avif";
  }
  if (bytes.toString("latin1", 0, 3) === "ID3" || (bytes[0] === 0xff && (bytes[1] & 0xe0) === 0xe0)) return "mp3";
  const sniffed = sniffBuffer(bytes);
  return sniffed && sniffed.format !== "mov" && sniffed.format !== "mkv" ? (sniffed.format as OutputKind) : null;
}

/** Writes bytes to a scratch file (ffprobe reads files). */
export async function toScratchFile(bytes: Buffer, ext: string): Promise<string> {
  const path = join(await scratchDir(), `reply.${ext}`);
  await writeFile(path, bytes);
  return path;
}

export async function probeBytes(bytes: Buffer, ext: string): Promise<Awaited<ReturnType<typeof probeJson>>> {
  return probeJson(await toScratchFile(bytes, ext));
}

/** Entries left in DATA_DIR/tmp (this test file's own DATA_DIR). */
export async function tempEntries(): Promise<string[]> {
  const root = join(dataDir(), "tmp");
  return existsSync(root) ? readdir(root) : [];
}

/**
 * Descriptors of this process still open on something under DATA_DIR/tmp: a converted
 * file's directory is deleted while the reply streams, so "no temp files left" also means
 * no deleted-but-open file keeping its disk space. Linux only (/proc); [] elsewhere.
 */
export async function openTempDescriptors(): Promise<string[]> {
  if (!existsSync("/proc/self/fd")) return [];
  const root = join(dataDir(), "tmp");
  const targets = await Promise.all((await readdir("/proc/self/fd")).map((fd) => readlink(join("/proc/self/fd", fd)).catch(() => "")));
  return targets.filter((t) => t.startsWith(root));
}

export async function expectNoTempLeft(): Promise<void> {
  expect(await tempEntries()).toEqual([]);
  expect(await openTempDescriptors()).toEqual([]);
}

/** Rows a conversion must never write (interface.md rule 7: nothing stored, no quota used). */
export async function storedCounts(): Promise<Record<string, number>> {
  const [posts, files, usageDays, usageWindows, jobs] = await Promise.all([
    db().post.count(),
    db().file.count(),
    db().usageDay.count(),
    db().usageWindow.count(),
    db().job.count(),
  ]);
  const stored = existsSync(join(dataDir(), "files")) ? (await readdir(join(dataDir(), "files"), { recursive: true })).length : 0;
  return { posts, files, usageDays, usageWindows, jobs, stored };
}

export async function readFixture(name: FixtureName): Promise<Buffer> {
  return readFile(await fixture(name));
}
