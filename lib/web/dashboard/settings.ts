/**
 * The settings page's account, read by its server component so the page renders with the
 * HTML instead of after the client's JavaScript and a `GET /relay/users/@me` round trip
 * (issue 29). The same verb and presenter as that endpoint (lib/routes/users.ts
 * `handleGetUser` for `@me`): a web session has full access, so gallery access is true.
 */
import type { z } from "zod";
import { ownAccount, type OwnAccount } from "@/lib/presenters/users";
import { getOwnAccount } from "@/lib/users/profile";
import { uploadPrivacyOf, type UploadPrivacy } from "@/lib/users/upload-privacy";
import { env } from "@/lib/config/env";

export interface FirstAccount {
  account: z.output<typeof OwnAccount>;
  /** When it was read (ms since the epoch): react-query refetches it once it is stale. */
  readAt: number;
  /** What the account's web and share-sheet uploads get, and the operator's default beside it. */
  uploadPrivacy: UploadPrivacy & { operatorDefault: UploadPrivacy["privacy"] };
}

export async function firstAccount(userId: string): Promise<FirstAccount> {
  const readAt = Date.now();
  const [account, uploadPrivacy] = await Promise.all([getOwnAccount(userId), uploadPrivacyOf(userId)]);
  return { account: ownAccount(account, true), readAt, uploadPrivacy: { ...uploadPrivacy, operatorDefault: env().DEFAULT_UPLOAD_PRIVACY } };
}
