"use server";
/** The guest upload page's password form (docs/guest-uploads.md), as a share page's. */
import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { env } from "@/lib/config/env";
import { findGuestDrop, GUEST_PASSWORD_MAX } from "@/lib/folders/guest";
import { requestClientIp } from "@/lib/http/client-ip";
import { tryGuestPassword } from "./guest-access";
import { guestUnlockCookieName, UNLOCK_TTL_SECONDS, unlockToken } from "./share-unlock";

export async function unlockGuestUploadAction(formData: FormData): Promise<void> {
  const code = String(formData.get("code") ?? "");
  const password = String(formData.get("password") ?? "").slice(0, GUEST_PASSWORD_MAX * 4);
  if (!/^[A-Za-z0-9]{4,64}$/.test(code)) redirect("/");
  const page = `/f/${code}/upload`;
  const drop = await findGuestDrop(code);
  if (!drop?.passwordHash) redirect(page);
  const result = await tryGuestPassword(drop, password, requestClientIp(await headers()));
  if (result !== "right") redirect(`${page}?password=${result}`);
  (await cookies()).set(guestUnlockCookieName(code), unlockToken(code, drop.passwordHash, undefined, "guest-upload"), {
    httpOnly: true,
    sameSite: "lax",
    secure: (env().PUBLIC_URL ?? "").startsWith("https:"),
    path: "/",
    maxAge: UNLOCK_TTL_SECONDS,
  });
  redirect(page);
}
