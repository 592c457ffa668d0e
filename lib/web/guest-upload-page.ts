/** A folder's guest upload page data (docs/guest-uploads.md). */
import { cookies } from "next/headers";
import { findGuestDrop } from "@/lib/folders/guest";
import { guestReceiveLimits } from "@/lib/uploads/guest";
import { guestUnlockCookieName, verifyUnlockToken } from "./share-unlock";

export type GuestUploadPage =
  | { kind: "not_found" }
  | { kind: "locked"; code: string; name: string; username: string }
  | {
      kind: "open";
      code: string;
      name: string;
      username: string;
      /** Largest file, and files and bytes still taken (null: no cap of the folder's). */
      maxFileBytes: number;
      filesLeft: number | null;
      bytesLeft: number | null;
      expiresAt: string | null;
      full: boolean;
    };

export async function loadGuestUploadPage(code: string): Promise<GuestUploadPage> {
  const drop = await findGuestDrop(code);
  if (!drop) return { kind: "not_found" };
  const named = { code: drop.code, name: drop.name, username: drop.owner.username };
  if (drop.passwordHash !== null) {
    const token = (await cookies()).get(guestUnlockCookieName(drop.code))?.value;
    if (!verifyUnlockToken(drop.code, drop.passwordHash, token, undefined, "guest-upload")) return { kind: "locked", ...named };
  }
  const full = drop.filesLeft === 0 || drop.bytesLeft === 0;
  const limits = full ? null : guestReceiveLimits(drop);
  return {
    kind: "open",
    ...named,
    maxFileBytes: limits?.maxFileBytes ?? 0,
    filesLeft: drop.filesLeft,
    bytesLeft: drop.bytesLeft,
    expiresAt: drop.settings.expiresAt?.toISOString() ?? null,
    full,
  };
}
