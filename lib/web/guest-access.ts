/** Who may upload into a password-protected guest folder (docs/guest-uploads.md): as a share page's password, tries limited alike. */
import { DomainError } from "@/lib/errors";
import { checkGuestPassword, type GuestDrop } from "@/lib/folders/guest";
import { beginShareGuess } from "./share-guesses";
import { cookieFrom, guestUnlockCookieName, verifyUnlockToken } from "./share-unlock";

export const GUEST_PASSWORD_HEADER = "guest-password";

/** A header's value as the password: percent-decoded when it is percent-encoding (header values are bytes). */
function headerPassword(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** Whether a right password unlocks the page now; refuses (403, or 429 past the tries) otherwise. */
export async function requireGuestAccess(drop: GuestDrop, headers: Headers, ip: string): Promise<void> {
  if (drop.passwordHash === null) return;
  const cookie = cookieFrom(headers.get("cookie"), guestUnlockCookieName(drop.code));
  if (cookie && verifyUnlockToken(drop.code, drop.passwordHash, cookie, undefined, "guest-upload")) return;
  const raw = headers.get(GUEST_PASSWORD_HEADER);
  if (raw === null) throw new DomainError("forbidden", `This folder's upload page needs its password (header ${GUEST_PASSWORD_HEADER}).`);
  const result = await tryGuestPassword(drop, headerPassword(raw), ip);
  if (result === "wrong") throw new DomainError("forbidden", "That password is not right.");
  if (result === "limited") throw new DomainError("rate_limited", "Too many attempts; try again in a few minutes.");
  if (result === "later") throw new DomainError("rate_limited", "Too many wrong passwords for this folder; try again later.");
}

/** One password try on the folder's upload page, counted before it is checked: right, wrong, or refused uncounted past the tries. */
export async function tryGuestPassword(drop: GuestDrop, password: string, ip: string): Promise<"right" | "wrong" | "limited" | "later"> {
  const guess = await beginShareGuess(drop.code, ip, false, "guest");
  if (!guess.allowed) return guess.reason;
  const right = await checkGuestPassword(drop, password);
  await guess.settle(right);
  return right ? "right" : "wrong";
}
