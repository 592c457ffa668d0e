/**
 * What an importer reads from another host (docs/migrate.md): its accounts, files and short
 * links as plain records, streamed (async iterables paged through the peer's database or
 * read from its history file), so an import of any size holds one page in memory.
 */
import type { PeerFile } from "./peer-files";

/** An old address of an item: the peer's host and path (percent-decoded), and what it showed. */
export interface OldPath {
  host: string;
  path: string;
  /** page: a viewer page (redirected to the share page); file: the raw bytes; link: a short link's redirect. */
  target: "page" | "file" | "link";
}

export interface SourceUser {
  /** The peer's id, unique within the source. */
  key: string;
  username: string;
  /** The hash scheme of the peer's password, for the summary (null: none set). */
  passwordScheme: string | null;
}

export interface SourceFile {
  /** The peer's id, unique within the source: "file:42". */
  key: string;
  /** The owner's SourceUser.key; null for a file without an owner. */
  ownerKey: string | null;
  /** Where the bytes are (on disk or in a bucket: peer-files.ts), or null when the peer's record names none. */
  file: PeerFile | null;
  /** The name the uploader gave the file (shown here), with its extension. */
  name: string;
  createdAt: Date;
  expiresAt: Date | null;
  views: number;
  maxViews: number | null;
  /** A password the peer hashed in a scheme this service cannot check: the post is imported private. */
  passwordProtected: boolean;
  /** Only its owner could see it on the peer: imported private. */
  hidden?: boolean;
  folder: { key: string; name: string; public: boolean } | null;
  /** A code to keep for the post when it is free and valid here (the peer's own short name). */
  codeHint: string | null;
  oldPaths: OldPath[];
  /** Set when the peer's record itself is unusable (a broken history entry): skipped with this reason. */
  problem?: string;
}

export interface SourceLink {
  key: string;
  ownerKey: string | null;
  destination: string;
  /** The code to keep when it is free and valid here (the vanity name, else the code). */
  codeHint: string | null;
  clicks: number;
  maxClicks: number | null;
  passwordProtected: boolean;
  createdAt: Date;
  oldPaths: OldPath[];
}

export interface ImportSource {
  /** "zipline@files.example.com": the scope of the items' keys (ImportedItem.source). */
  id: string;
  /** The old hosts whose requests the redirect table answers (ImportHost). */
  hosts: string[];
  /** What this reader found (for the summary): "zipline v4". */
  describe(): Promise<string>;
  users(): AsyncIterable<SourceUser>;
  files(): AsyncIterable<SourceFile>;
  links(): AsyncIterable<SourceLink>;
  close(): Promise<void>;
}

/** A host as the redirect table keeps it: lower-case, no port, no trailing dot. */
export function normaliseHost(input: string): string | null {
  try {
    const host = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(input) ? input : `http://${input}`).hostname;
    return host.toLowerCase().replace(/\.$/, "") || null;
  } catch {
    return null;
  }
}

/** A path as the redirect table keeps it: percent-decoded where possible, `//` folded. */
export function normalisePath(pathname: string): string {
  let path = pathname;
  try {
    path = decodeURIComponent(pathname);
  } catch {
    // Malformed escapes: the raw path.
  }
  return path.replace(/\/{2,}/g, "/");
}
