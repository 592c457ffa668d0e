/**
 * The resources of the API and Relay (post, file, user, error) as zod schemas. They describe
 * the JSON we send (checked against every reply outside production) and feed the OpenAPI
 * documents, where clients read them (docs/http-core.md, "OpenAPI").
 */
import { z } from "zod";
import { ERROR_TYPES } from "../errors";
import { PRIVACIES } from "../posts/privacy";

const iso = z.string().describe("ISO 8601 UTC timestamp");
/** What a file is (docs/file-kinds.md). */
export const FILE_KINDS = ["image", "video", "text", "file"] as const;
export type FileKind = (typeof FILE_KINDS)[number];
const plan = z.enum(["free", "plus", "ultra"]);

export const UserRef = z
  .object({
    id: z.string(),
    username: z.string(),
    nickname: z.string(),
    avatar: z.url(),
    verified: z.boolean(),
    plan,
  })
  .meta({ id: "UserRef" });

export const Profile = UserRef.extend({
  follower_count: z.number().int(),
  following_count: z.number().int(),
  following: z.boolean(),
  blocking: z.boolean(),
  upload_count: z.number().int(),
  created_at: iso,
  bio: z.string().nullable(),
  banner: z.url().nullable(),
  staff: z.boolean(),
  partner: z.boolean(),
  translator: z.boolean(),
  bug_hunter_tier: z.number().int(),
}).meta({ id: "Profile" });

const LimitEntry = z.object({ resets_at: iso });

export const OwnAccount = Profile.extend({
  email: z.string().nullable(),
  theme: z.unknown().nullable(),
  link_domain: z.string().nullable(),
  link_domain_verified: z.boolean().describe("The link domain's DNS proof was seen; share URLs use it only then"),
  link_domain_proof: z
    .object({ name: z.string(), value: z.string() })
    .nullable()
    .describe("The TXT record that proves the link domain (docs/link-domains.md); null without one"),
  suspended: z.boolean(),
  key_has_uploads_access: z.boolean(),
  limits: z
    .object({
      usage: LimitEntry.extend({
        quota: z.number().int().describe("Weekly quota in bytes"),
        used: z.number().int(),
        remaining: z.number().int(),
      }),
      priority: LimitEntry.extend({
        minutes_left: z.number().int().describe("Priority (adaptive streaming) minutes left"),
        minutes: z.number().int().describe("Minutes the plan grants per month"),
      }),
    })
    .describe("Each entry has resets_at"),
  upload_limits: z.object({
    file_bytes: z.number().int().describe("Largest file per upload"),
    request_bytes: z.number().int().describe("Largest upload request"),
  }),
}).meta({ id: "OwnAccount" });

export const FileObject = z
  .object({
    name: z.string(),
    url: z.url(),
    size: z.number().int(),
    mime_type: z.string(),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
    duration: z.number().nullable().optional(),
    thumbnail_url: z
      .url()
      .nullable()
      .describe(
        "Videos: the generated still frame (JPEG). Images: the grid-sized WebP rendition (640 px wide, or the image's own width when narrower; docs/renditions.md). For private posts it is signed with the same 24-hour expiry.",
      ),
    renditions: z
      .array(
        z.object({
          width: z.number().int().describe("Pixel width of this rendition (never more than the source's)"),
          url: z.url().describe("WebP rendition; signed like the file's url for private posts"),
        }),
      )
      .describe(
        "Sized WebP renditions of an image or of a video's still frame, smallest first, for srcset (320, 640 and 1280 px; fewer when the source is narrower). Empty for files without pixels to show.",
      ),
    stream_url: z.url().nullable().describe("HLS master playlist (adaptive delivery); null until ready or on standard delivery"),
    stream_state: z
      .enum(["queued", "processing", "ready", "failed"])
      .nullable()
      .describe("Adaptive stream progress; null for images and standard delivery (docs/priority-delivery.md)"),
    kind: z
      .enum(FILE_KINDS)
      .describe(
        "image or video (the media types); text (a text or source file, shown highlighted on the share page; url serves it as text/plain) or file (any other file, served as an attachment). text and file exist only when the operator allows them (UPLOAD_FILES, docs/file-kinds.md); width and height are null for them.",
      ),
    language: z.string().nullable().describe("Text files: the highlighting language (a Shiki grammar id, or text); null otherwise"),
    text: z
      .object({
        content: z.string().describe("The words read, one line of the image per line; empty when the image has no readable text"),
        language: z.string().describe("Tesseract language code, e.g. eng"),
        confidence: z.number().describe("Mean confidence (0-100) of the words kept"),
      })
      .nullable()
      .optional()
      .describe(
        "Addition (docs/ocr.md): the text read from an image in the background. Present only for the post's owner; null until read, and for files that are not images.",
      ),
  })
  .meta({ id: "File" });

export const Post = z
  .object({
    code: z.string(),
    url: z.url(),
    title: z.string().nullable(),
    description: z.string().nullable(),
    privacy: z.enum(PRIVACIES),
    created_at: iso,
    view_count: z.number().int(),
    like_count: z.number().int().nullable(),
    comment_count: z.number().int(),
    liked: z.boolean().nullable(),
    priority: z.boolean(),
    file_count: z.number().int(),
    files: z.array(FileObject),
    kind: z.enum(FILE_KINDS).describe("The first file's kind (docs/file-kinds.md)"),
    team_id: z.string().nullable(),
    author: UserRef.nullable(),
    moderated: z.boolean().optional(),
    restricted: z.boolean().optional(),
    access: z.array(UserRef).optional(),
    /** docs/expiry.md: when the post expires, and after how many counted views. */
    expires_at: iso.nullable(),
    max_views: z.number().int().nullable(),
    /** Present only for the owner: whether the share page asks for a password (docs/share-passwords.md). */
    password_protected: z.boolean().optional(),
  })
  .meta({ id: "Post" });

export const ErrorBody = z
  .object({
    error: z.looseObject({ type: z.enum(ERROR_TYPES as [string, ...string[]]), message: z.string() }),
  })
  .meta({ id: "Error" });

/** `{<key>: [...], has_more, next_cursor}` */
export const paged = <K extends string, T extends z.ZodType>(key: K, item: T) =>
  z.object({ [key]: z.array(item), has_more: z.boolean(), next_cursor: z.string().nullable() } as {
    [P in K]: z.ZodArray<T>;
  } & { has_more: z.ZodBoolean; next_cursor: z.ZodNullable<z.ZodString> });
