/** What several parts of the route table share: surfaces, key kinds, the upload headers. */

export const BOTH = ["api", "relay"] as const;
export const RELAY = ["relay"] as const;
export const PERSONAL_AND_TEAM = ["personal", "team"] as const;
export const UPLOAD_FIELDS = { file: "One or more files (repeat the field)." };

/** The text parts of POST /upload and POST /posts/{code}/files. */
export const UPLOAD_TEXT_FIELDS = {
  url: "Instead of (or beside) a file part: an http(s) URL the server fetches and stores as a file, in its place among the parts (repeat the field; docs/url-uploads.md).",
};

/** How stored files are treated (docs/uploads.md, "The pipeline, per file"); read when files are appended too. */
export const FILE_HEADERS = {
  "include-metadata": { description: "`true` keeps the files' metadata (EXIF, GPS...); default `false` strips it." },
  priority: {
    description:
      "`true` (default): videos ask for adaptive streaming, which spends priority minutes; `false`: standard delivery (docs/uploads.md).",
  },
} as const;

/** The headers of POST /upload (docs/uploads.md, docs/expiry.md); other values are 400 invalid_request. */
export const UPLOAD_HEADERS = {
  "post-privacy": { description: "`public`, `unlisted` or `private` (default; trimmed, any case). A team key's posts are always private." },
  ...FILE_HEADERS,
  "post-type": { description: "`album` (default): the files become one post; `single`: one post per file (docs/uploads.md)." },
  "expires-at": { description: "ISO 8601 time with a zone after which the post is deleted (docs/expiry.md)." },
  "max-views": { description: "Integer from 1 to 1 000 000 000: the post is deleted once viewed that often (docs/expiry.md)." },
  folder: {
    description:
      "A folder of the uploader's, by id or name (percent-encoded UTF-8), created (private) when no folder has that name; the posts go in it (docs/folders.md). Ignored for team keys.",
  },
  "x-mediahost-domain": {
    description:
      "One of GET /domains: the posts' share and file links are built on it (docs/domains.md); another name is 400. Read only while the operator lists DOMAINS; absent: the account's default domain.",
  },
} as const;

/** The file parts of a guest's upload (docs/guest-uploads.md). */
export const GUEST_UPLOAD_FIELDS = { file: "One or more files (repeat the field); each becomes a private post of the folder's owner." };

/** The header of a guest's upload into a password-protected folder (docs/guest-uploads.md). */
export const GUEST_UPLOAD_HEADERS = {
  "guest-password": {
    description:
      "The folder's upload password (percent-encoded UTF-8), for scripts; the upload page's form uses the unlock cookie its password form sets instead.",
  },
} as const;
