/**
 * The first run (docs/setup.md): `/setup` asks for the set-up code, derived from the signing
 * secret and printed in the log, so a public instance is not claimable by whoever finds it first.
 * Wrong codes are counted per address and for the whole instance (a botnet meets the second count).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { recordAudit } from "@/lib/audit/log";
import { addressSubject } from "@/lib/auth/attempts";
import { signingSecret } from "@/lib/crypto/signing";
import { db } from "@/lib/db/client";
import { isUniqueViolation } from "@/lib/prisma-support";
import { DomainError } from "@/lib/errors";
import { counterStore } from "@/lib/ratelimit";
import { type Account, createUser } from "@/lib/users/accounts";

/** Crockford's base32: no I, L, O or U, so a code read from a log and typed is rarely mistyped. */
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const CODE_LENGTH = 12;

export const SETUP_IP_LIMIT = 10;
export const SETUP_GLOBAL_LIMIT = 100;
export const SETUP_WINDOW_SECONDS = 15 * 60;

/** As printed: `7F3K-92QD-XM4A` (60 bits). */
export function setupCode(secret: string = signingSecret()): string {
  const digest = createHmac("sha256", secret).update("mediahost set-up code v1").digest();
  let code = "";
  for (let i = 0; i < CODE_LENGTH; i++) code += ALPHABET[digest[i] % 32];
  return code.match(/.{4}/g)?.join("-") ?? code;
}

const normalise = (typed: string): string =>
  typed
    .toUpperCase()
    .replace(/[\s-]+/g, "")
    .replace(/[IL]/g, "1")
    .replace(/O/g, "0");

function codeMatches(typed: string): boolean {
  const expected = Buffer.from(normalise(setupCode()));
  const given = Buffer.from(normalise(typed).slice(0, 64));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export async function setupPending(): Promise<boolean> {
  return (await db().user.count({ where: { role: "admin" }, take: 1 })) === 0;
}

async function countWrongCode(ip: string): Promise<void> {
  const store = counterStore();
  const keys: [string, number][] = [
    [`setup_fail:ip:${addressSubject(ip)}`, SETUP_IP_LIMIT],
    ["setup_fail:all", SETUP_GLOBAL_LIMIT],
  ];
  await Promise.all(keys.map(([key, limit]) => store.hit(key, limit, SETUP_WINDOW_SECONDS)));
}

async function checkNotLimited(ip: string): Promise<void> {
  const store = counterStore();
  const keys: [string, number][] = [
    [`setup_fail:ip:${addressSubject(ip)}`, SETUP_IP_LIMIT],
    ["setup_fail:all", SETUP_GLOBAL_LIMIT],
  ];
  // Peek by taking a place and giving it back: the store counts, it has no read-only look.
  const results = await Promise.all(keys.map(([key, limit]) => store.hit(key, limit, SETUP_WINDOW_SECONDS)));
  await Promise.all(keys.map(([key], i) => (results[i].allowed ? store.release(key, SETUP_WINDOW_SECONDS) : undefined)));
  const denied = results.filter((r) => !r.allowed);
  if (denied.length) {
    const retryAfter = Math.max(...denied.map((r) => r.retryAfter));
    throw new DomainError("rate_limited", `Too many wrong set-up codes; retry in ${retryAfter} s.`, undefined, undefined, retryAfter);
  }
}

export interface ClaimInput {
  code: string;
  username: string;
  password: string;
  email?: string;
  ip: string;
}

/** Creates the first administrator; of two racing set-ups one wins and the other's account is not kept. */
export async function claimInstance(input: ClaimInput): Promise<Account> {
  if (!(await setupPending())) throw new DomainError("not_found", "This instance is already set up.");
  await checkNotLimited(input.ip);
  if (!codeMatches(input.code)) {
    await countWrongCode(input.ip);
    throw new DomainError("forbidden", "That set-up code is not valid.");
  }
  const user = await createUser({ username: input.username, password: input.password, email: input.email || undefined });
  try {
    await db().$transaction([
      db().instanceSetup.create({ data: { id: 1, adminId: user.id } }),
      db().user.update({ where: { id: user.id }, data: { role: "admin" } }),
    ]);
  } catch (error) {
    await db().user.delete({ where: { id: user.id } });
    if (isUniqueViolation(error)) throw new DomainError("not_found", "This instance is already set up.");
    throw error;
  }
  await recordAudit({ source: "web", userId: user.id, name: user.displayUsername }, "instance.setup", {
    type: "user",
    id: user.id,
    label: user.displayUsername,
  });
  return user;
}
