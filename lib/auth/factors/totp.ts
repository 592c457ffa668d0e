/** TOTP (RFC 6238) with node:crypto (docs/two-factor.md); the replay guard is the caller's (two-factor.ts). */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const TOTP_DIGITS = 6;
export const TOTP_STEP_SECONDS = 30;
/** Phones' clocks drift a little. */
export const TOTP_WINDOW = 1;
const SECRET_BYTES = 20;

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** The alphabet authenticator apps expect in otpauth:// URIs. */
export function base32Encode(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

export function base32Decode(text: string): Buffer | null {
  const clean = text.toUpperCase().replace(/[\s=]/g, "");
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of clean) {
    const index = BASE32.indexOf(char);
    if (index < 0) return null;
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

export function newTotpSecret(): Buffer {
  return randomBytes(SECRET_BYTES);
}

export const stepAt = (timeMs: number): number => Math.floor(timeMs / 1000 / TOTP_STEP_SECONDS);

export type HotpAlgorithm = "sha1" | "sha256" | "sha512";

export function hotp(secret: Buffer, counter: number, digits = TOTP_DIGITS, algorithm: HotpAlgorithm = "sha1"): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const digest = createHmac(algorithm, secret).update(message).digest();
  // Dynamic truncation (RFC 4226 §5.3).
  const offset = digest[digest.length - 1] & 0x0f;
  const binary = digest.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, "0");
}

export function totpAt(secret: Buffer, timeMs: number, digits = TOTP_DIGITS, algorithm: HotpAlgorithm = "sha1"): string {
  return hotp(secret, stepAt(timeMs), digits, algorithm);
}

/** Constant time: every candidate is computed, so the time taken does not tell which step matched. */
export function matchTotp(secret: Buffer, code: string, timeMs: number = Date.now()): number | null {
  const wanted = Buffer.from(code.replace(/\s/g, ""));
  if (!/^\d+$/.test(wanted.toString()) || wanted.length !== TOTP_DIGITS) return null;
  const now = stepAt(timeMs);
  let found: number | null = null;
  for (let step = now - TOTP_WINDOW; step <= now + TOTP_WINDOW; step++) {
    if (timingSafeEqual(Buffer.from(hotp(secret, step)), wanted) && found === null) found = step;
  }
  return found;
}

export function otpauthUri(secret: Buffer, issuer: string, account: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const params = new URLSearchParams({
    secret: base32Encode(secret),
    issuer,
    algorithm: "SHA1",
    digits: String(TOTP_DIGITS),
    period: String(TOTP_STEP_SECONDS),
  });
  return `otpauth://totp/${label}?${params.toString()}`;
}
