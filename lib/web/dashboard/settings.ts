/**
 * The settings page's account, read by its server component so the page renders with the
 * HTML instead of after the client's JavaScript and a `GET /relay/users/@me` round trip
 * (issue 29). The same verb and presenter as that endpoint (lib/routes/users.ts
 * `handleGetUser` for `@me`): a web session has full access, so gallery access is true.
 */
import type { z } from "zod";
import { type DomainList, domainListView, ownAccount, type OwnAccount } from "@/lib/presenters/users";
import { listOfferedDomains } from "@/lib/domains/domains";
import { getOwnAccount } from "@/lib/users/profile";
import { uploadPrivacyOf, type UploadPrivacy } from "@/lib/users/upload-privacy";
import { env } from "@/lib/config/env";
import { operatorTemplates, readEmbedStyle } from "@/lib/embeds/style";
import type { EmbedTemplates } from "@/lib/embeds/template";

/** The account's embed style and the operator's defaults under it, for the live preview (docs/embeds.md). */
export interface EmbedSettings {
  style: EmbedTemplates;
  operator: EmbedTemplates;
  siteName: string;
  color: string;
  /** Where share links start (the preview's {post.url}). */
  shareUrl: string;
}

export interface FirstAccount {
  account: z.output<typeof OwnAccount>;
  /** When it was read (ms since the epoch): react-query refetches it once it is stale. */
  readAt: number;
  /** What the account's web and share-sheet uploads get, and the operator's default beside it. */
  uploadPrivacy: UploadPrivacy & { operatorDefault: UploadPrivacy["privacy"] };
  embed: EmbedSettings;
  /** The domains offered to the account and the one in use (docs/domains.md). */
  domains: z.output<typeof DomainList>;
}

export async function firstAccount(userId: string): Promise<FirstAccount> {
  const readAt = Date.now();
  const [account, uploadPrivacy, style, domains] = await Promise.all([
    getOwnAccount(userId),
    uploadPrivacyOf(userId),
    readEmbedStyle(userId),
    listOfferedDomains(userId),
  ]);
  const e = env();
  return {
    account: ownAccount(account, true),
    readAt,
    uploadPrivacy: { ...uploadPrivacy, operatorDefault: e.DEFAULT_UPLOAD_PRIVACY },
    embed: { style, operator: operatorTemplates(), siteName: e.SITE_NAME, color: e.EMBED_COLOR, shareUrl: e.shareUrl },
    domains: domainListView(domains),
  };
}
