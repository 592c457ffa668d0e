/**
 * TOTP secrets encrypted at rest (docs/two-factor.md, "The secret at rest") under a key from the
 * signing secret, never in the database, so a database copy gives no second factor away. The
 * user id is associated data: a row copied onto another account does not decrypt.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";
import { signingSecret } from "@/lib/crypto/signing";

const key = (): Buffer => createHmac("sha256", signingSecret()).update("mediahost-totp-secret-v1").digest();

export function sealSecret(secret: Buffer, userId: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key(), iv);
  cipher.setAAD(Buffer.from(userId));
  const body = Buffer.concat([cipher.update(secret), cipher.final()]);
  return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), body.toString("base64url")].join(".");
}

/** Null when tampered with or sealed under another signing secret. */
export function openSecret(sealed: string, userId: string): Buffer | null {
  const [version, iv, tag, body] = sealed.split(".");
  if (version !== "v1" || !iv || !tag || body === undefined) return null;
  try {
    const decipher = createDecipheriv("aes-256-gcm", key(), Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(userId));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]);
  } catch {
    return null;
  }
}
