/**
 * Limits on password guessing and account creation, whose endpoints have no key for the
 * dispatcher's per-user buckets (docs/two-factor.md). Sign-in failures count per account and
 * per address (IPv6 per /64, so a host rotating its addresses keeps its count). An attempt
 * takes its places before the password is checked, so concurrent guesses cannot slip past,
 * and a success gives them back; a refused attempt costs no scrypt time and is not counted.
 */
import { DomainError } from "@/lib/errors";
import { counterStore, type WindowResult } from "@/lib/ratelimit";

export const LOGIN_ACCOUNT_LIMIT = 10;
/** Higher than the per-account limit so a few people behind one NAT who mistype do not lock each other out. */
export const LOGIN_IP_LIMIT = 30;
export const LOGIN_WINDOW_SECONDS = 15 * 60;

/** Each costs a scrypt hash. */
export const REGISTER_IP_LIMIT = 10;
/** Per username and per email, from any address: the answer says whether one is taken, so it must not be probed endlessly. */
export const REGISTER_ACCOUNT_LIMIT = 5;
export const REGISTER_WINDOW_SECONDS = 60 * 60;

/** IPv4 as is, IPv6 reduced to its /64 prefix. */
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
  succeeded(): Promise<void>;
}

const refused = (what: string, result: WindowResult) =>
  new DomainError("rate_limited", `${what}; retry in ${result.retryAfter} s.`, undefined, undefined, result.retryAfter);

/**
 * Counts one sign-in attempt for `accountKey` and the client address. The rate_limited
 * message does not say which, and is the same whether the account exists or not.
 */
export async function beginLoginAttempt(accountKey: string, ip: string): Promise<LoginAttempt> {
  return beginAttempt(
    [`login_fail:account:${accountKey}`, LOGIN_ACCOUNT_LIMIT],
    [`login_fail:ip:${addressSubject(ip)}`, LOGIN_IP_LIMIT],
    "Too many failed sign-in attempts",
  );
}

/**
 * Second-factor codes per account. A 6-digit code with the ±1 step window is guessed with
 * probability 3·10⁻⁶ per try, so 5 tries per 15 minutes keep a year under 1 % (docs/two-factor.md).
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

/** Counts one registration attempt; a refused one gives back the places it took, as sign-in does. */
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
