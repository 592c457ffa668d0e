/**
 * Password hashing with scrypt (memory-hard, in node:crypto, no native add-on).
 *
 * Stored as `scrypt$N$r$p$salt$hash`: the parameters travel with each hash, so a hash made
 * under older settings still verifies, and `needsRehash` tells the sign-in to replace it
 * (docs/web-auth.md, "Ways to sign in"). Current settings are OWASP's first recommended scrypt
 * configuration, N=2^17, r=8, p=1: 128 MiB of memory per hash.
 *
 * At most HASH_CONCURRENCY hashes run at once: each holds 128 MiB, and scrypt runs on
 * libuv's small thread pool, which file I/O needs too. Others wait their turn.
 */
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from "node:crypto";

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/** What new hashes use, and what older hashes are upgraded to. */
export const CURRENT_PARAMS: Readonly<ScryptParams> = { N: 1 << 17, r: 8, p: 1 };
const KEYLEN = 32;
/** Bounds of stored parameters we agree to compute: a corrupt row must not exhaust memory. */
const MAX_N = 1 << 20;
const MAX_R = 32;
const MAX_P = 16;
const HASH_CONCURRENCY = 2;

/** scrypt needs 128·N·r bytes (plus a little); node refuses anything above maxmem. */
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

/** Hashes computing and waiting right now (tests check the bound). */
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

/**
 * Whether a stored hash was made with other settings than the current ones (older, weaker
 * ones in practice), so the next successful sign-in, when the password is at hand, stores
 * a new hash.
 */
export function needsRehash(stored: string | null | undefined): boolean {
  const parsed = parseStored(stored);
  if (!parsed) return false;
  const { N, r, p } = parsed.params;
  return N !== CURRENT_PARAMS.N || r !== CURRENT_PARAMS.r || p !== CURRENT_PARAMS.p || parsed.hash.length !== KEYLEN;
}
