"use server";
/**
 * The share page's password form (docs/share-passwords.md). A plain form post (works
 * without JavaScript): a correct password sets the post's unlock cookie and returns to the
 * page; a wrong one returns with `?password=wrong`. Attempts are limited per client address
 * and post (SHARE_PASSWORD_ATTEMPTS per window), counted before the check, so guessing
 * costs the same whether a guess is right or wrong; past the limit the answer is
 * `?password=limited` and the password is not even checked.
 */
import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { env } from "../config/env";
import { isDomainError } from "../errors";
import { isShareCode } from "../posts/codes";
import { readPost } from "../posts/read";
import { checkSharePassword, SHARE_PASSWORD_MAX } from "../posts/share-password";
import { counterStore } from "../ratelimit";
import { requestClientIp } from "../http/client-ip";
import { SHARE_PASSWORD_ATTEMPTS, unlockCookieName, unlockToken, UNLOCK_TTL_SECONDS } from "./share-unlock";
import { getViewer } from "./viewer";

const publicOrigin = (): string => env().PUBLIC_URL ?? "";

export async function unlockShareAction(formData: FormData): Promise<void> {
  const code = String(formData.get("code") ?? "");
  const password = String(formData.get("password") ?? "").slice(0, SHARE_PASSWORD_MAX * 4);
  if (!isShareCode(code)) redirect("/");
  const page = `/p/${code}`;
  const requestHeaders = await headers();
  const ip = requestClientIp(requestHeaders);
  const attempts = await counterStore().increment(`share_password:${code}:${ip}`, SHARE_PASSWORD_ATTEMPTS.windowSeconds);
  if (attempts > SHARE_PASSWORD_ATTEMPTS.max) redirect(`${page}?password=limited`);

  const viewer = await getViewer();
  let passwordHash: string | null;
  try {
    passwordHash = (await readPost(code, { userId: viewer?.id ?? null, teamId: null })).post.passwordHash;
  } catch (error) {
    if (isDomainError(error)) redirect(page);
    throw error;
  }
  if (passwordHash === null) redirect(page);
  if (!(await checkSharePassword({ passwordHash }, password))) redirect(`${page}?password=wrong`);
  (await cookies()).set(unlockCookieName(code), unlockToken(code, passwordHash), {
    httpOnly: true,
    sameSite: "lax",
    secure: publicOrigin().startsWith("https:"),
    path: "/",
    maxAge: UNLOCK_TTL_SECONDS,
  });
  redirect(page);
}
