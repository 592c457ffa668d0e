/**
 * The privacy a person's web and share-sheet uploads get when they do not pick one: the
 * account's own preference, else the operator's DEFAULT_UPLOAD_PRIVACY (unlisted unless
 * changed). API uploads are not affected: POST /upload stays private unless the request
 * says otherwise (the interface's default).
 */
import { env } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { isPrivacy, type Privacy } from "@/lib/posts/privacy";

export interface UploadPrivacy {
  /** What new uploads get. */
  privacy: Privacy;
  /** The account chose it (true), or it is the operator's default (false). */
  chosen: boolean;
}

export async function uploadPrivacyOf(userId: string): Promise<UploadPrivacy> {
  const row = await db().user.findUnique({ where: { id: userId }, select: { defaultPrivacy: true } });
  const own = row?.defaultPrivacy;
  return own && isPrivacy(own) ? { privacy: own, chosen: true } : { privacy: env().DEFAULT_UPLOAD_PRIVACY, chosen: false };
}

/** Sets the account's preference; null goes back to the operator's default. */
export async function setUploadPrivacy(userId: string, privacy: Privacy | null): Promise<UploadPrivacy> {
  await db().user.update({ where: { id: userId }, data: { defaultPrivacy: privacy } });
  return uploadPrivacyOf(userId);
}
