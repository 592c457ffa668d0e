/**
 * Uploads from a URL (docs/url-uploads.md): fetched to a temporary file through the webhooks'
 * address guard, each redirect checked again. The origin's Content-Type is never trusted.
 */
import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import http from "node:http";
import https from "node:https";
import { join } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { env } from "@/lib/config/env";
import { DomainError } from "@/lib/errors";
import { type GuardOptions, resolveGuardedUrl, type ResolvedTarget } from "@/lib/webhooks/address-guard";
import { webhookSettings } from "@/lib/webhooks/config";
import { pinnedLookup } from "@/lib/webhooks/send";
import type { ReceivedFile } from "./multipart";

/** The longest URL taken (browsers and CDNs agree on ~2 000 characters). */
export const MAX_URL_LENGTH = 2048;
const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_REDIRECTS = 3;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export interface UrlFetchOptions {
  maxFileBytes: number;
  timeoutMs: number;
  maxRedirects: number;
  guard: GuardOptions;
  hash: boolean;
}

export function urlFetchOptions(maxFileBytes: number, hash: boolean): UrlFetchOptions {
  const e = env();
  const { allowPrivate, allowList } = webhookSettings();
  return {
    maxFileBytes,
    timeoutMs: e.URL_UPLOAD_TIMEOUT_MS ?? DEFAULT_TIMEOUT_MS,
    maxRedirects: e.URL_UPLOAD_MAX_REDIRECTS ?? DEFAULT_MAX_REDIRECTS,
    guard: { allowPrivate, allowList },
    hash,
  };
}

export function parseUploadUrl(raw: string): URL {
  const text = raw.trim();
  if (!text) throw new DomainError("invalid_request", 'The "url" field is empty.');
  if (text.length > MAX_URL_LENGTH) throw new DomainError("invalid_request", `The upload URL is longer than ${MAX_URL_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new DomainError("invalid_request", "The upload URL is not a valid URL.");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new DomainError("invalid_request", "The upload URL must start with https:// or http://.");
  if (url.username || url.password) throw new DomainError("invalid_request", "The upload URL must not carry a user name or password.");
  return url;
}

/** Each entry fails alone, like a file part. */
export async function fetchUrlEntries(files: ReceivedFile[], tmpDir: string, options: UrlFetchOptions): Promise<void> {
  for (const entry of files) {
    if (entry.sourceUrl === undefined || entry.error) continue;
    const path = join(tmpDir, `url-${entry.index}`);
    try {
      const fetched = await fetchToFile(parseUploadUrl(entry.sourceUrl), path, options);
      Object.assign(entry, fetched, { path });
    } catch (error) {
      await rm(path, { force: true });
      entry.error = error instanceof DomainError ? error : new DomainError("invalid_request", "The upload URL could not be fetched.");
    }
  }
}

interface Fetched {
  filename: string;
  size: number;
  sha256?: string;
}

async function fetchToFile(start: URL, path: string, options: UrlFetchOptions): Promise<Fetched> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  const slow = () => new DomainError("invalid_request", `The upload URL did not send its file within ${options.timeoutMs} ms.`);
  try {
    let url = start;
    for (let hop = 0; ; hop++) {
      // The look-up counts against the time limit too: a resolver that never answers is "too slow".
      // (The race's loser only ever resolves, so a later abort leaves no rejection unhandled.)
      const target = await Promise.race([
        resolveGuardedUrl(url, options.guard, { name: "upload", refusal: "invalid_request" }),
        aborted(controller.signal).then(() => null),
      ]);
      if (!target || controller.signal.aborted) throw slow();
      const response = await open(target, controller.signal).catch((error: unknown) => {
        throw controller.signal.aborted ? slow() : unreachable(error);
      });
      const status = response.statusCode ?? 0;
      if (REDIRECTS.has(status)) {
        response.destroy();
        if (hop >= options.maxRedirects)
          throw new DomainError("invalid_request", `The upload URL redirected more than ${options.maxRedirects} times.`);
        url = redirectTarget(url, response.headers.location);
        continue;
      }
      if (status < 200 || status > 299) {
        response.destroy();
        throw new DomainError("invalid_request", `The upload URL answered HTTP ${status}, not a file.`);
      }
      return await download(response, url, path, options).catch((error: unknown) => {
        throw controller.signal.aborted ? slow() : error;
      });
    }
  } finally {
    clearTimeout(timer);
  }
}

/** Settles when `signal` aborts (never otherwise; the timer that aborts it is always cleared or fired). */
const aborted = (signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true })));

const unreachable = (error: unknown) =>
  new DomainError(
    "invalid_request",
    `The upload URL could not be reached (${(error as NodeJS.ErrnoException).code ?? "connection failed"}).`,
  );

/** A GET to the checked address: the lookup answers with it, TLS still checks the URL's host name. */
function open(target: ResolvedTarget, signal: AbortSignal): Promise<http.IncomingMessage> {
  const client = target.url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.get(target.url, {
      lookup: pinnedLookup(target),
      agent: false,
      signal,
      // Identity: the bytes stored are the bytes sent, and a compressed body cannot hide its size.
      headers: { "user-agent": "Mediahost-UrlUpload/1", accept: "*/*", "accept-encoding": "identity" },
    });
    request.on("response", resolve);
    request.on("error", reject);
  });
}

function redirectTarget(from: URL, location: string | undefined): URL {
  if (!location) throw new DomainError("invalid_request", "The upload URL redirected without a Location.");
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new DomainError("invalid_request", "The upload URL redirected to an invalid URL.");
  }
  return parseUploadUrl(next.href);
}

const tooLarge = (limit: number) =>
  new DomainError("file_too_large", `The file at the upload URL is over the limit of ${limit} bytes for this plan.`);

async function download(response: http.IncomingMessage, url: URL, path: string, options: UrlFetchOptions): Promise<Fetched> {
  const declared = Number(response.headers["content-length"] ?? Number.NaN);
  if (declared > options.maxFileBytes) {
    response.destroy();
    throw tooLarge(options.maxFileBytes);
  }
  const hash = options.hash ? createHash("sha256") : null;
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size > options.maxFileBytes) return callback(tooLarge(options.maxFileBytes));
      hash?.update(chunk);
      callback(null, chunk);
    },
  });
  try {
    await pipeline(response, counter, createWriteStream(path));
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw new DomainError("invalid_request", "The upload URL's response broke off before its end.");
  }
  if (size === 0) throw new DomainError("invalid_request", "The upload URL sent an empty file.");
  return { filename: fileNameOf(response.headers["content-disposition"], url), size, ...(hash ? { sha256: hash.digest("hex") } : {}) };
}

/** The name the origin gives (Content-Disposition), else the URL's last path segment, else "download". */
export function fileNameOf(disposition: string | undefined, url: URL): string {
  const star = disposition && /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(disposition);
  const plain = disposition && /filename\s*=\s*"?([^";]+)"?/i.exec(disposition);
  const fromHeader = star ? safeDecode(star[1]) : plain ? plain[1] : "";
  const segment = url.pathname.split("/").filter(Boolean).pop() ?? "";
  const name = (fromHeader || safeDecode(segment)).replace(/[/\\]/g, "_").trim();
  return (name || "download").slice(0, 255);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
