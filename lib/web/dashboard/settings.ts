/** The settings page's account in its HTML (issue 29): `GET /relay/users/@me`'s verb and presenter. */
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
  shareUrl: string;
}

export interface FirstAccount {
  account: z.output<typeof OwnAccount>;
  readAt: number;
  uploadPrivacy: UploadPrivacy & { operatorDefault: UploadPrivacy["privacy"] };
  embed: EmbedSettings;
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
