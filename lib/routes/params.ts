/** Path, query and body pieces shared by several routes. */
import { MAX_VIEWS_LIMIT, parseExpiry } from "../posts/expiry-rules";
import { z } from "zod";
import { LIMITS, limitedText, pagingQuery, privacyField } from "../http/parse";
import { ANALYTICS_RANGES, DEFAULT_ANALYTICS_RANGE } from "../analytics/analytics";
import { GALLERY_SORTS, GALLERY_TABS } from "../posts/list";
import { SESSION_NAME_MAX_LENGTH } from "../sessions/sessions";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../users/accounts";
import { LINK_DOMAIN_MAX_LENGTH } from "../users/link-domain";
import { BIO_MAX_LENGTH, NICKNAME_MAX_LENGTH } from "../users/profile-edit";

export const codeParam = z.object({
  code: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "code is not a valid share code."),
});
export const idParam = z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_@.-]+$/, "id is not a valid id."),
});
export const fileParam = codeParam.extend({
  name: z
    .string()
    .min(1)
    .max(255)
    .regex(/^[^/\\\u0000]+\.[A-Za-z0-9]{1,8}$/, "name must be a file name with its extension."),
});
export const followerParam = z.object({ id: idParam.shape.id });

export const pageQuery = pagingQuery;
export const postsQuery = pagingQuery.extend({
  search: z.string().max(100).optional(),
  privacy: privacyField.optional(),
  tab: z.enum(GALLERY_TABS, { error: `tab must be one of ${GALLERY_TABS.join(", ")}.` }).optional(),
  folder: z.string().max(64).optional().describe("Only posts in this folder (its id; docs/folders.md)"),
  sort: z
    .enum(GALLERY_SORTS, { error: `sort must be one of ${GALLERY_SORTS.join(", ")}.` })
    .optional()
    .describe(
      "Order (docs/gallery-sort.md): date (newest first, the default), size (largest first), views (most first) or name " +
        "(title, else the first file's name, A to Z); a leading - reverses it. Ties are broken by post id. " +
        "The cursor is bound to the order: a cursor from another order is 400 invalid_request.",
    ),
});
// At most 6 words of `search` are used, and only `limit` and `cursor` can be invalid
// (docs/gifs.md, "Search semantics"). So a long search is cut, never refused: any sane query
// has its first 6 words in its first 1,000 characters.
export const gifsQuery = pagingQuery.extend({
  search: z
    .string()
    .transform((s) => s.slice(0, 1000))
    .optional(),
});
export const analyticsQuery = z.object({
  range: z.enum(ANALYTICS_RANGES, { error: `range must be one of ${ANALYTICS_RANGES.join(", ")}.` }).default(DEFAULT_ANALYTICS_RANGE),
});

const nullableText = (field: string, max: number) => limitedText(field, max).nullable().optional();

/** `expires_at`: an ISO 8601 time with a zone or a duration from now (`1h`, `7d`); null clears it. */
const expiresAtField = z
  .string({ error: "expires_at must be a string or null." })
  .nullable()
  .optional()
  .transform((v, ctx) => {
    if (v === null || v === undefined) return v;
    try {
      return parseExpiry(v, "expires_at");
    } catch (error) {
      ctx.addIssue({ code: "custom", message: error instanceof Error ? error.message : "expires_at is not valid." });
      return z.NEVER;
    }
  })
  .meta({ description: "ISO 8601 time with a zone, or a duration from now (30m, 1h, 7d, 2w); null removes the expiry." });

export const updatePostBody = z.object({
  title: nullableText("title", LIMITS.title),
  description: nullableText("description", LIMITS.description),
  privacy: privacyField.optional(),
  expires_at: expiresAtField,
  max_views: z
    .number({ error: `max_views must be an integer from 1 to ${MAX_VIEWS_LIMIT} or null.` })
    .int({ error: `max_views must be an integer from 1 to ${MAX_VIEWS_LIMIT} or null.` })
    .min(1, { error: `max_views must be an integer from 1 to ${MAX_VIEWS_LIMIT} or null.` })
    .max(MAX_VIEWS_LIMIT, { error: `max_views must be an integer from 1 to ${MAX_VIEWS_LIMIT} or null.` })
    .nullable()
    .optional()
    .meta({ description: "Views after which the post expires (counted from now on the post's total); null removes the limit." }),
});
export const updatePostBodyRelay = updatePostBody.extend({
  access: z.array(z.string().min(1).max(64), { error: "access must be a JSON array of usernames." }).max(100).optional(),
});
export const reportBody = z.object({ reason: nullableText("reason", LIMITS.reason) });
export const commentBody = z.object({
  body: limitedText("body", LIMITS.comment).refine((s) => s.trim().length > 0, "body must not be empty."),
});
/** Control characters other than line breaks and tabs: invisible and they break layouts. */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
const LINE_BREAK = /[\r\n\t]/;
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
});
export const preferencesBody = z.strictObject({
  likes: z.boolean({ error: "likes must be true or false." }).optional(),
  comments: z.boolean({ error: "comments must be true or false." }).optional(),
  comment_likes: z.boolean({ error: "comment_likes must be true or false." }).optional(),
  follows: z.boolean({ error: "follows must be true or false." }).optional(),
});
export const markReadBody = z.object({ ids: z.array(z.string().min(1).max(64)).max(100).optional() });
const deviceField = z
  .string()
  .max(SESSION_NAME_MAX_LENGTH, `device must be at most ${SESSION_NAME_MAX_LENGTH} characters.`)
  .refine((s) => !CONTROL.test(s) && !LINE_BREAK.test(s), "device must be one line without control characters.")
  .optional()
  .describe("Name shown in GET /sessions; default: read from the User-Agent");
export const loginBody = z.object({
  username: z.string().min(1).max(254).describe("Username or email"),
  password: z.string().min(1).max(PASSWORD_MAX_LENGTH),
  code: z.string().min(1).max(64).optional().describe("TOTP or recovery code, for accounts with two-factor sign-in (docs/two-factor.md)"),
  device: deviceField,
});
export const registerBody = z.object({
  username: z.string().min(2).max(32),
  password: z.string().min(PASSWORD_MIN_LENGTH, `password must be at least ${PASSWORD_MIN_LENGTH} characters.`).max(PASSWORD_MAX_LENGTH),
  email: z.email().max(254).optional(),
  invite: z.string().max(64).optional().describe("Invite code; needed when REGISTRATION=invite"),
  device: deviceField,
});

// ── two-factor sign-in and passkeys (docs/two-factor.md, docs/passkeys.md) ──
/** A WebAuthn credential id: base64url, at most 1023 bytes by the specification. */
export const passkeyParam = z.object({
  id: z
    .string()
    .min(1)
    .max(1400)
    .regex(/^[A-Za-z0-9_-]+$/, "id is not a passkey id."),
});
export const totpConfirmBody = z.object({ code: z.string().min(1).max(64) });
/** Who confirms a change of the second factor: the password, or a current code. */
export const factorProofBody = z
  .object({ password: z.string().min(1).max(PASSWORD_MAX_LENGTH).optional(), code: z.string().min(1).max(64).optional() })
  .refine((b) => Boolean(b.password || b.code), { message: "Send `password` or `code`." });
/** POST /users/@me/email: the new address and the password (or a code, for accounts without one). */
export const emailChangeBody = z.object({
  email: z.string().min(1).max(254),
  password: z.string().min(1).max(PASSWORD_MAX_LENGTH).optional(),
  code: z.string().min(1).max(64).optional(),
});
/**
 * POST /users/@me/delete: the password, or a code (accounts without a password); nothing for
 * an account with neither that signed in within 10 minutes. `delete_teams`: teams the caller
 * owns with other members go too (docs/account-deletion.md).
 */
export const accountDeleteBody = z.object({
  password: z.string().min(1).max(PASSWORD_MAX_LENGTH).optional(),
  code: z.string().min(1).max(64).optional(),
  delete_teams: z.boolean().optional(),
});
/** POST /auth/password: the current password (or a code, for accounts without one) and the new one. */
export const passwordChangeBody = z.object({
  password: z.string().min(1).max(PASSWORD_MAX_LENGTH).optional(),
  code: z.string().min(1).max(64).optional(),
  new_password: z.string().min(1).max(PASSWORD_MAX_LENGTH),
});
/** The browser's PublicKeyCredential as JSON (@simplewebauthn/browser); checked in depth by the verifier. */
const webauthnResponse = z.looseObject({
  id: z.string().min(1).max(1400),
  rawId: z.string().min(1).max(1400),
  type: z.literal("public-key"),
  response: z.looseObject({ clientDataJSON: z.string().max(8192) }),
  clientExtensionResults: z.looseObject({}).default({}),
});
export const passkeyCreateBody = z.object({ name: z.string().max(64).default("Passkey"), response: webauthnResponse });
export const passkeyRenameBody = z.object({ name: z.string().min(1).max(64) });
export const passkeyLoginBody = z.object({ response: webauthnResponse, device: deviceField });
