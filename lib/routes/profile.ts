/** Handlers of the profile area (Relay); the rules live in lib/users and lib/social. */
import { z } from "zod";
import type { RouteContext } from "@/lib/http/route";
import { postView } from "@/lib/presenters/posts";
import { ownAccount } from "@/lib/presenters/users";
import type { BucketName } from "@/lib/ratelimit/buckets";
import { discoverPosts } from "@/lib/social/discover";
import { hasGalleryAccess, type PersonalPrincipal } from "@/lib/types/principal";
import type { RouteRequest } from "@/lib/types/route-request";
import { receiveSingleFile } from "@/lib/uploads/multipart";
import { PROFILE_IMAGE_FIELD, removeProfileImage, setProfileImage, type ProfileImageKind } from "@/lib/users/images";
import { LINK_DOMAIN_MAX_LENGTH } from "@/lib/users/link-domain";
import { verifyLinkDomain } from "@/lib/domains/link-domain-proof";
import { getOwnAccount } from "@/lib/users/profile";
import { setUploadPrivacy } from "@/lib/users/upload-privacy";
import { BIO_MAX_LENGTH, NICKNAME_MAX_LENGTH, updateProfile } from "@/lib/users/profile-edit";
import { limitedText, privacyField } from "@/lib/http/parse";
import { readEmbedStyle, saveEmbedStyle } from "@/lib/embeds/style";
import { COLOR_PATTERN, EMBED_LIMITS, type EmbedTextField } from "@/lib/embeds/template";
import { embedStyleView } from "@/lib/replies/embeds";
import { CONTROL, LINE_BREAK } from "./params";

// Strict: a misspelt field (or one that cannot be edited here, such as username) is a 400
// naming it, not a silent no-op.
export const profileBody = z.strictObject({
  nickname: limitedText("nickname", NICKNAME_MAX_LENGTH)
    .refine((s) => !CONTROL.test(s) && !LINE_BREAK.test(s), "nickname must be one line without control characters.")
    .nullable()
    .optional(),
  bio: limitedText("bio", BIO_MAX_LENGTH)
    .refine((s) => !CONTROL.test(s), "bio must not contain control characters.")
    .nullable()
    .optional(),
  // Its size is checked when it is stored (THEME_MAX_BYTES).
  theme: z.unknown().optional().describe("Any JSON value chosen by the client; null clears it"),
  link_domain: limitedText("link_domain", LINK_DOMAIN_MAX_LENGTH).nullable().optional(),
  default_domain: limitedText("default_domain", LINK_DOMAIN_MAX_LENGTH)
    .nullable()
    .optional()
    .describe("One of GET /domains (docs/domains.md): new links are built on it; null: the instance's default"),
});

/** The privacy of the account's web and share-sheet uploads; null: the operator's default. */
export const uploadPrivacyBody = z.strictObject({ privacy: privacyField.nullable() });

const embedText = (name: EmbedTextField) =>
  limitedText(name, EMBED_LIMITS[name])
    .refine((s) => !CONTROL.test(s), `${name} must not contain control characters.`)
    .nullable()
    .optional();

// Strict, like the profile: a misspelt field is a 400 naming it. Missing or null: not set (the default).
export const embedStyleBody = z.strictObject({
  title: embedText("title"),
  description: embedText("description"),
  site_name: embedText("site_name"),
  author: embedText("author"),
  color: z.string().regex(COLOR_PATTERN, "color must be a colour such as #3552e3.").nullable().optional(),
});

/** A body that changes only the theme counts against the theme bucket (20/min). */
export function updateProfileBucket(body: z.output<typeof profileBody>): BucketName {
  return body && Object.keys(body).length === 1 && "theme" in body ? "theme_update" : "profile_update";
}

async function ownAccountReply(principal: PersonalPrincipal) {
  return { user: ownAccount(await getOwnAccount(principal.user.id), hasGalleryAccess(principal)) };
}

async function setImage(principal: PersonalPrincipal, kind: ProfileImageKind, request: RouteRequest) {
  const receive = async (tmpDir: string, maxBytes: number) =>
    (await receiveSingleFile(request, { field: PROFILE_IMAGE_FIELD, maxFileBytes: maxBytes, tmpDir })).path;
  await setProfileImage(principal.user.id, kind, receive, request.signal);
  return ownAccountReply(principal);
}

async function removeImage(principal: PersonalPrincipal, kind: ProfileImageKind) {
  await removeProfileImage(principal.user.id, kind);
  return ownAccountReply(principal);
}

export async function handleDiscover({ principal, ip }: RouteContext) {
  const userId = principal.user.id;
  const items = await discoverPosts(userId, ip);
  return {
    posts: items.map(({ post, liked }) => postView(post, { owner: post.userId === userId, liked, surface: "relay", primaryOnly: true })),
  };
}

export async function handleUpdateProfile({ principal, body }: RouteContext<{ body: typeof profileBody }>) {
  await updateProfile(principal.user.id, {
    nickname: body.nickname,
    bio: body.bio,
    theme: body.theme,
    linkDomain: body.link_domain,
    defaultDomain: body.default_domain,
  });
  return ownAccountReply(principal);
}

export async function handleVerifyLinkDomain({ principal }: RouteContext) {
  await verifyLinkDomain(principal.user.id);
  return ownAccountReply(principal);
}

export async function handleSetAvatar({ principal, request }: RouteContext) {
  return setImage(principal, "avatar", request);
}
export async function handleRemoveAvatar({ principal }: RouteContext) {
  return removeImage(principal, "avatar");
}
export async function handleSetBanner({ principal, request }: RouteContext) {
  return setImage(principal, "banner", request);
}
export async function handleRemoveBanner({ principal }: RouteContext) {
  return removeImage(principal, "banner");
}

export async function handleSetUploadPrivacy({ principal, body }: RouteContext<{ body: typeof uploadPrivacyBody }>) {
  return { upload_privacy: await setUploadPrivacy(principal.user.id, body.privacy) };
}

export async function handleGetEmbedStyle({ principal }: RouteContext) {
  return { embed: embedStyleView(await readEmbedStyle(principal.user.id)) };
}

/** PUT: the whole style at once; a field left out goes back to the operator's default. */
export async function handleUpdateEmbedStyle({ principal, body }: RouteContext<{ body: typeof embedStyleBody }>) {
  const saved = await saveEmbedStyle(principal.user.id, {
    title: body.title ?? null,
    description: body.description ?? null,
    site_name: body.site_name ?? null,
    author: body.author ?? null,
    color: body.color ?? null,
  });
  return { embed: embedStyleView(saved) };
}
