/**
 * What `/signin?error=` may say. The query is anyone's to write (a link in a phishing mail
 * could carry "Call 555-0100 to unlock your account"), so the page shows only the messages
 * listed here, by code; any other value gets the generic line (docs/web-auth.md).
 */
import { isDomainError } from "@/lib/errors";

const GENERIC = "That sign-in did not work; please try again.";

/** Our codes (from the OAuth / OIDC callback) and their words. */
const MESSAGES = new Map<string, string>(
  Object.entries({
    suspended: "This account is suspended.",
    no_account: "No account on this server is linked to that sign-in, and sign-up is not open.",
    rate_limited: "Too many attempts; please wait a few minutes and try again.",
    CredentialsSignin: "Wrong username, email or password.",
    SessionRequired: "Please sign in to see that page.",
  }),
);

/** The words for an `error` query value: a known message, the generic line, or null for none. */
export function signInErrorText(code: string | null): string | null {
  if (!code) return null;
  return MESSAGES.get(code) ?? GENERIC;
}

/** The code the OAuth / OIDC callback puts in `/signin?error=` for a failed sign-in. */
export function signInErrorCode(error: unknown): string {
  if (!isDomainError(error)) return "failed";
  if (error.type === "suspended" || error.type === "rate_limited") return error.type;
  if (error.type === "forbidden") return "no_account";
  return "failed";
}
