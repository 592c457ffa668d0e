/**
 * Limits on password guessing (POST /relay/auth/login and the web sign-in, which calls the
 * same function) and on account creation (POST /relay/auth/register and the web sign-up). These endpoints have no key, so the table-driven per-user
 * buckets of the dispatcher cannot apply; the counters live here, in the same counter
 * store (memory, or Redis shared by every instance).
 *
 * Sign-in failures are counted twice, and either count can refuse:
 * - per account: stops guessing one account's password from many addresses;
 * - per client address: stops one address from trying a few passwords on many accounts
 *   (password spraying). IPv6 clients are counted per /64, the block one host usually
 *   gets, so rotating through its own addresses does not reset the count.
 *
 * Mechanics: an attempt takes a place in both windows *before* the password is checked
 * (so concurrent guesses cannot all slip past a check-then-count), and a successful
 * sign-in gives its places back. What stays counted is exactly the failures. A refused
 * attempt (429) never reaches the password check, costs no scrypt time, and is not
 * counted itself, so Retry-After is honest: after it the client has its budget back.
 */
import { DomainError } from "@/lib/errors";
import { counterStore, type WindowResult } from "@/lib/ratelimit";

/** Failed sign-ins per account per window. */
export const LOGIN_ACCOUNT_LIMIT = 10;
/**
 * Failed sign-ins per client address per window. Higher than the per-account limit so a
 * few people behind one NAT (an office, a campus) who mistype do not lock each other out,
 * while spraying stays at a few guesses a minute.
 */
export const LOGIN_IP_LIMIT = 30;
export const LOGIN_WINDOW_SECONDS = 15 * 60;

/** Registration attempts per client address per window (each costs a scrypt hash). */
export const REGISTER_IP_LIMIT = 10;
/**
 * Registration attempts per requested username and per email address per window, from any
 * address: the answer says whether a name or an address is taken, so a botnet must not be
 * able to probe one name or one address endlessly.
 */
export const REGISTER_ACCOUNT_LIMIT = 5;
export const REGISTER_WINDOW_SECONDS = 60 * 60;

/**
 * The counting unit for an address: IPv4 as is, IPv6 reduced to its /64 prefix.
 * Addresses arrive normalised (lib/http/client-ip.ts).
 */
export function addressSubject(ip: string): string {
  if (!ip.includes(":")) return ip;
  const [head, tail = ""] = ip.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = ip.includes("::") ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, "") || "0")
    .join(":")}::/64`;
}

export interface LoginAttempt {
  /** Sign-in succeeded: give the places back. */
  succeeded(): Promise<void>;
}

const refused = (what: string, result: WindowResult) =>
  new DomainError("rate_limited", `${what}; retry in ${result.retryAfter} s.`, undefined, undefined, result.retryAfter);

/**
 * Counts one sign-in attempt for `accountKey` (the user id when the name is known, else
 * the name as typed, lower-cased) and the client address. Throws rate_limited when either
 * has used up its failures; the message does not say which, and is the same whether the
 * account exists or not.
 */
export async function beginLoginAttempt(accountKey: string, ip: string): Promise<LoginAttempt> {
  return beginAttempt(
    [`login_fail:account:${accountKey}`, LOGIN_ACCOUNT_LIMIT],
    [`login_fail:ip:${addressSubject(ip)}`, LOGIN_IP_LIMIT],
    "Too many failed sign-in attempts",
  );
}

/**
 * Second-factor codes (TOTP or recovery code) tried for one account after its password was
 * right, or to confirm a 2FA change. Lower than the password limit: a 6-digit code with the
 * ±1 step window is guessed with probability 3·10⁻⁶ per try, so 5 tries per 15 minutes keep
 * a year of guessing under 1 % (docs/two-factor.md). The address counts against the same
 * per-address budget as passwords.
 */
export const SECOND_FACTOR_ACCOUNT_LIMIT = 5;

export async function beginSecondFactorAttempt(userId: string, ip: string): Promise<LoginAttempt> {
  return beginAttempt(
    [`second_factor_fail:account:${userId}`, SECOND_FACTOR_ACCOUNT_LIMIT],
    [`login_fail:ip:${addressSubject(ip)}`, LOGIN_IP_LIMIT],
    "Too many wrong codes",
  );
}

async function beginAttempt(account: [string, number], address: [string, number], what: string): Promise<LoginAttempt> {
  const store = counterStore();
  const keys = [account[0], address[0]] as const;
  const results = await Promise.all([
    store.hit(account[0], account[1], LOGIN_WINDOW_SECONDS),
    store.hit(address[0], address[1], LOGIN_WINDOW_SECONDS),
  ]);
  const release = (onlyAdmitted: boolean) =>
    Promise.all(keys.map((key, i) => (!onlyAdmitted || results[i].allowed ? store.release(key, LOGIN_WINDOW_SECONDS) : undefined))).then(
      () => undefined,
    );

  const denied = results.filter((r) => !r.allowed);
  if (denied.length) {
    // The attempt is refused, so it must not use up the window it was admitted to.
    await release(true);
    const longest = denied.reduce((a, b) => (b.retryAfter > a.retryAfter ? b : a));
    throw refused(what, longest);
  }
  return { succeeded: () => release(false) };
}

/**
 * Counts one registration attempt from `ip` for the requested username (and email address,
 * when given); rate_limited past REGISTER_IP_LIMIT for the address or REGISTER_ACCOUNT_LIMIT
 * for the name or email. A refused attempt gives back the places it took, as sign-in does.
 */
export async function countRegistrationAttempt(ip: string, username: string, email?: string): Promise<void> {
  const store = counterStore();
  const counted: [string, number][] = [
    [`register:ip:${addressSubject(ip)}`, REGISTER_IP_LIMIT],
    [`register:name:${username.trim().toLowerCase()}`, REGISTER_ACCOUNT_LIMIT],
  ];
  if (email?.trim()) counted.push([`register:email:${email.trim().toLowerCase()}`, REGISTER_ACCOUNT_LIMIT]);
  const results = await Promise.all(counted.map(([key, limit]) => store.hit(key, limit, REGISTER_WINDOW_SECONDS)));
  const denied = results.filter((r) => !r.allowed);
  if (!denied.length) return;
  await Promise.all(counted.map(([key], i) => (results[i].allowed ? store.release(key, REGISTER_WINDOW_SECONDS) : undefined)));
  const longest = denied.reduce((a, b) => (b.retryAfter > a.retryAfter ? b : a));
  throw refused(
    results[0].allowed ? "Too many sign-up attempts for this name or email address" : "Too many sign-up attempts from this address",
    longest,
  );
}
