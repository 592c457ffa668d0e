/** What `/signin?error=` may say: only these messages, since the query is anyone's to write (docs/web-auth.md). */
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
