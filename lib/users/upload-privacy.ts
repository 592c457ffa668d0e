/** The privacy of web and share-sheet uploads that pick none; API uploads keep the interface's default. */
import { env } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { isPrivacy, type Privacy } from "@/lib/types/privacy";

export interface UploadPrivacy {
  privacy: Privacy;
  chosen: boolean;
}

export async function uploadPrivacyOf(userId: string): Promise<UploadPrivacy> {
  const row = await db().user.findUnique({ where: { id: userId }, select: { defaultPrivacy: true } });
  const own = row?.defaultPrivacy;
  return own && isPrivacy(own) ? { privacy: own, chosen: true } : { privacy: env().DEFAULT_UPLOAD_PRIVACY, chosen: false };
}

/** Null goes back to the operator's default. */
export async function setUploadPrivacy(userId: string, privacy: Privacy | null): Promise<UploadPrivacy> {
  await db().user.update({ where: { id: userId }, data: { defaultPrivacy: privacy } });
  return uploadPrivacyOf(userId);
}
