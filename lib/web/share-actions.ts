"use server";
/** The share page's password form (docs/share-passwords.md): tries are counted before the check (share-guesses.ts). */
import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { env } from "@/lib/config/env";
import { isDomainError } from "@/lib/errors";
import { isShareCode } from "@/lib/posts/codes";
import { readPost } from "@/lib/posts/read";
import { checkSharePassword, SHARE_PASSWORD_MAX } from "@/lib/posts/share-password";
import { requestClientIp } from "@/lib/http/client-ip";
import { beginShareGuess } from "./share-guesses";
import { unlockCookieName, unlockToken, UNLOCK_TTL_SECONDS } from "./share-unlock";
import { getViewer } from "./viewer";

const publicOrigin = (): string => env().PUBLIC_URL ?? "";

export async function unlockShareAction(formData: FormData): Promise<void> {
  const code = String(formData.get("code") ?? "");
  const password = String(formData.get("password") ?? "").slice(0, SHARE_PASSWORD_MAX * 4);
  if (!isShareCode(code)) redirect("/");
  const page = `/p/${code}`;
  const requestHeaders = await headers();
  const ip = requestClientIp(requestHeaders);
  const viewer = await getViewer();
  let passwordHash: string | null;
  let owner: boolean;
  try {
    ({
      owner,
      post: { passwordHash },
    } = await readPost(code, { userId: viewer?.id ?? null, teamId: null }));
  } catch (error) {
    if (isDomainError(error)) redirect(page);
    throw error;
  }
  if (passwordHash === null) redirect(page);
  const guess = await beginShareGuess(code, ip, owner);
  if (!guess.allowed) redirect(`${page}?password=${guess.reason}`);
  const right = await checkSharePassword({ passwordHash }, password);
  await guess.settle(right);
  if (!right) redirect(`${page}?password=wrong`);
  (await cookies()).set(unlockCookieName(code), unlockToken(code, passwordHash), {
    httpOnly: true,
    sameSite: "lax",
    secure: publicOrigin().startsWith("https:"),
    path: "/",
    maxAge: UNLOCK_TTL_SECONDS,
  });
  redirect(page);
}
