/**
 * Secret keys (docs/keys.md): 256 random bits in base64url, which ShareX's and Chatterino's
 * header parsers leave alone; a prefix names the kind, so authentication is one indexed
 * look-up. Only the SHA-256 is stored (keys are high-entropy: a slow hash adds nothing).
 */
import { hash, randomBytes, timingSafeEqual } from "node:crypto";

export type KeyKind = "app" | "team" | "relay";

const PREFIX: Record<KeyKind, string> = { app: "mha_", team: "mht_", relay: "mhr_" };

export interface IssuedKey {
  /** Shown once, never stored. */
  key: string;
  hash: string;
  /** Safe to display to tell keys apart. */
  hint: string;
}

export function issueKey(kind: KeyKind): IssuedKey {
  const key = PREFIX[kind] + randomBytes(32).toString("base64url");
  return { key, hash: hashKey(key), hint: key.slice(0, PREFIX[kind].length + 4) };
}

export function hashKey(key: string): string {
  // The one-shot hash costs less than createHash, and every cached read hashes its key (docs/performance.md,
  // "The cached post reply kept, cheaper cache hits and key hashes").
  return hash("sha256", key, "hex");
}

export function keyKind(key: string): KeyKind | null {
  if (!/^[A-Za-z0-9_-]{20,200}$/.test(key)) return null;
  for (const kind of Object.keys(PREFIX) as KeyKind[]) if (key.startsWith(PREFIX[kind])) return kind;
  return null;
}

export function hashesEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, "hex");
  const y = Buffer.from(b, "hex");
  return x.length === y.length && timingSafeEqual(x, y);
}
