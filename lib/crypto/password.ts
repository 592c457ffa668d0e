/**
 * scrypt password hashes as `scrypt$N$r$p$salt$hash`, so older hashes still verify and are
 * redone at the next sign-in (docs/web-auth.md, "Ways to sign in"). At most HASH_CONCURRENCY
 * run at once: each holds 128 MiB on libuv's small pool, which file I/O needs too.
 */
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from "node:crypto";

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

export const CURRENT_PARAMS: Readonly<ScryptParams> = { N: 1 << 17, r: 8, p: 1 };
const KEYLEN = 32;
/** A corrupt row must not exhaust memory. */
const MAX_N = 1 << 20;
const MAX_R = 32;
const MAX_P = 16;
const HASH_CONCURRENCY = 2;

const maxmemFor = ({ N, r }: ScryptParams): number => 128 * N * r + 16 * 1024 * 1024;

let running = 0;
const waiting: (() => void)[] = [];

async function scrypt(password: string, salt: Buffer, keylen: number, params: ScryptParams): Promise<Buffer> {
  if (running >= HASH_CONCURRENCY) await new Promise<void>((go) => waiting.push(go));
  running++;
  try {
    const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem: maxmemFor(params) };
    return await new Promise<Buffer>((resolve, reject) =>
      scryptCb(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))),
    );
  } finally {
    running--;
    waiting.shift()?.();
  }
}

export function scryptLoad(): { running: number; waiting: number } {
  return { running, waiting: waiting.length };
}

export async function hashPassword(password: string, params: ScryptParams = CURRENT_PARAMS): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password.normalize("NFKC"), salt, KEYLEN, params);
  return ["scrypt", params.N, params.r, params.p, salt.toString("base64url"), hash.toString("base64url")].join("$");
}

interface StoredHash {
  params: ScryptParams;
  salt: Buffer;
  hash: Buffer;
}

const isPowerOfTwo = (n: number): boolean => Number.isInteger(n) && n > 1 && (n & (n - 1)) === 0;

function parseStored(stored: string | null | undefined): StoredHash | null {
  const parts = (stored ?? "").split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return null;
  const [, n, r, p, salt, hash] = parts;
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  if (!isPowerOfTwo(params.N) || params.N > MAX_N) return null;
  if (!Number.isInteger(params.r) || params.r < 1 || params.r > MAX_R) return null;
  if (!Number.isInteger(params.p) || params.p < 1 || params.p > MAX_P) return null;
  const digest = Buffer.from(hash, "base64url");
  if (digest.length < 16) return null;
  return { params, salt: Buffer.from(salt, "base64url"), hash: digest };
}

export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const parsed = parseStored(stored);
  if (!parsed) {
    // Spend the same time as a real check so a missing account is not observable.
    await hashPassword(password);
    return false;
  }
  const actual = await scrypt(password.normalize("NFKC"), parsed.salt, parsed.hash.length, parsed.params);
  return actual.length === parsed.hash.length && timingSafeEqual(actual, parsed.hash);
}

export function needsRehash(stored: string | null | undefined): boolean {
  const parsed = parseStored(stored);
  if (!parsed) return false;
  const { N, r, p } = parsed.params;
  return N !== CURRENT_PARAMS.N || r !== CURRENT_PARAMS.r || p !== CURRENT_PARAMS.p || parsed.hash.length !== KEYLEN;
}
