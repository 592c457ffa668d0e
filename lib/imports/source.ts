/** What an importer reads from a peer (docs/migrate.md), streamed so an import of any size holds one page. */
import type { PeerFile } from "./peer-files";

/** An old address of an item: the peer's host and path (percent-decoded), and what it showed. */
export interface OldPath {
  host: string;
  path: string;
  target: "page" | "file" | "link";
}

export interface SourceUser {
  key: string;
  username: string;
  passwordScheme: string | null;
}

export interface SourceFile {
  key: string;
  ownerKey: string | null;
  file: PeerFile | null;
  name: string;
  createdAt: Date;
  expiresAt: Date | null;
  views: number;
  maxViews: number | null;
  /** A password in a scheme this service cannot check: imported private. */
  passwordProtected: boolean;
  hidden?: boolean;
  folder: { key: string; name: string; public: boolean } | null;
  codeHint: string | null;
  oldPaths: OldPath[];
  /** A broken record: skipped with this reason. */
  problem?: string;
}

export interface SourceLink {
  key: string;
  ownerKey: string | null;
  destination: string;
  codeHint: string | null;
  clicks: number;
  maxClicks: number | null;
  passwordProtected: boolean;
  createdAt: Date;
  oldPaths: OldPath[];
}

export interface ImportSource {
  id: string;
  hosts: string[];
  describe(): Promise<string>;
  users(): AsyncIterable<SourceUser>;
  files(): AsyncIterable<SourceFile>;
  links(): AsyncIterable<SourceLink>;
  close(): Promise<void>;
}

export function normaliseHost(input: string): string | null {
  try {
    const host = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(input) ? input : `http://${input}`).hostname;
    return host.toLowerCase().replace(/\.$/, "") || null;
  } catch {
    return null;
  }
}

export function normalisePath(pathname: string): string {
  let path = pathname;
  try {
    path = decodeURIComponent(pathname);
  } catch {
    // Malformed escapes: the raw path.
  }
  return path.replace(/\/{2,}/g, "/");
}
