/**
 * Signed URLs for private posts' files (docs/storage.md, "Signed URLs for private files"): an
 * HMAC over path and expiry, nothing stored per URL. The secret is SIGNING_SECRET, else one
 * kept in `${DATA_DIR}/signing-secret`; instances without a shared DATA_DIR must all set the same.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { env } from "@/lib/config/env";
import { dataDir } from "@/lib/db/config";

export const SIGNED_URL_TTL_SECONDS = 86_400;
export const SECRET_FILE_NAME = "signing-secret";
/** Bumped if the signed message ever changes, so old and new signatures never collide. */
const MESSAGE_VERSION = "mediahost-url-v1";
const EXP_PATTERN = /^[1-9]\d{0,11}$/;
const SIG_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

const holder = globalThis as unknown as { __mediahostSigningSecret?: string };

/** Created by hard-linking a temp file into place: link fails if the name exists, so of a server and a CLI starting together one secret wins. */
export function loadOrCreateSecretFile(dir: string = dataDir()): string {
  const path = join(dir, SECRET_FILE_NAME);
  const read = (): string | undefined => {
    try {
      return readFileSync(path, "utf8").trim() || undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  };
  const existing = read();
  if (existing) return existing;
  mkdirSync(dir, { recursive: true });
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  writeFileSync(tmp, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600, flag: "wx" });
  try {
    linkSync(tmp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    rmSync(tmp, { force: true });
  }
  const created = read();
  if (!created) throw new Error(`${path} is empty; delete it or set SIGNING_SECRET`);
  return created;
}

export function signingSecret(): string {
  holder.__mediahostSigningSecret ??= env().SIGNING_SECRET || loadOrCreateSecretFile();
  return holder.__mediahostSigningSecret;
}

/** For tests, after changing SIGNING_SECRET or DATA_DIR. */
export function resetSigningSecret(): void {
  holder.__mediahostSigningSecret = undefined;
}

function signature(path: string, expiresAt: number, secret: string): string {
  return createHmac("sha256", secret).update(`${MESSAGE_VERSION}\n${expiresAt}\n${path}`).digest("base64url");
}

/** Sign the path percent-encoded, as verification sees `new URL(request.url).pathname`. */
export function signPath(path: string, expiresAt: number, secret: string = signingSecret()): string {
  if (!Number.isSafeInteger(expiresAt) || expiresAt <= 0) throw new Error(`Invalid expiry ${expiresAt}`);
  return `?exp=${expiresAt}&sig=${signature(path, expiresAt, secret)}`;
}

export function signUrl(url: string, expiresAt: number = nowSeconds() + SIGNED_URL_TTL_SECONDS, secret?: string): string {
  const parsed = new URL(url);
  if (parsed.search) throw new Error("signUrl: the URL must not already have a query");
  return `${parsed.origin}${parsed.pathname}${signPath(parsed.pathname, expiresAt, secret)}`;
}

/** Malformed values are refused before any HMAC work; the comparison is constant-time. */
export function verifySignature(
  path: string,
  exp: string | number | null | undefined,
  sig: string | null | undefined,
  now: number = nowSeconds(),
  secret: string = signingSecret(),
): boolean {
  const expText = typeof exp === "number" ? String(exp) : exp;
  if (!expText || !EXP_PATTERN.test(expText) || !sig || !SIG_PATTERN.test(sig)) return false;
  const expiresAt = Number(expText);
  if (now >= expiresAt) return false;
  const expected = Buffer.from(signature(path, expiresAt, secret));
  const given = Buffer.from(sig);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export type SignedUrlCheck = { ok: true; expiresAt: number } | { ok: false; reason: "unsigned" | "invalid" | "expired" };

/** What `/cdn` calls for a private file; `expiresAt` bounds the response's cache lifetime. */
export function checkSignedUrl(url: string | URL, now: number = nowSeconds(), secret?: string): SignedUrlCheck {
  const parsed = typeof url === "string" ? new URL(url) : url;
  const exp = parsed.searchParams.get("exp");
  const sig = parsed.searchParams.get("sig");
  if (exp === null && sig === null) return { ok: false, reason: "unsigned" };
  if (!verifySignature(parsed.pathname, exp, sig, Number.MIN_SAFE_INTEGER, secret)) return { ok: false, reason: "invalid" };
  const expiresAt = Number(exp);
  return now >= expiresAt ? { ok: false, reason: "expired" } : { ok: true, expiresAt };
}
