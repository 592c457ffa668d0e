/**
 * Auto-moderation of every stored file, title and description: a hit quarantines the whole
 * post. The default is a word list and a SHA-256 blocklist (docs/configuration.md, MODERATION_*).
 */
import { createHash } from "node:crypto";
import { createReadStream, existsSync, readFileSync } from "node:fs";
import { pipeline } from "node:stream/promises";

export interface Moderator {
  flagsText(text: string): boolean;
  flagsFile(sha256: string): boolean;
  /** False when flagsFile can never be true: uploads then skip hashing every byte. Absent means true. */
  readonly screensFiles?: boolean;
}

/** Whether uploads must hash their files for `m`. */
export const screensFiles = (m: Moderator): boolean => m.screensFiles !== false;

export class ListModerator implements Moderator {
  private readonly pattern: RegExp | null;
  private readonly hashes: Set<string>;

  constructor(words: readonly string[], hashes: readonly string[]) {
    const cleaned = words.map((w) => w.trim().toLowerCase()).filter(Boolean);
    this.pattern = cleaned.length
      ? new RegExp(`(^|[^\\p{L}\\p{N}])(${cleaned.map(escapeRegExp).join("|")})(?=$|[^\\p{L}\\p{N}])`, "iu")
      : null;
    this.hashes = new Set(hashes.map((h) => h.trim().toLowerCase()).filter((h) => /^[0-9a-f]{64}$/.test(h)));
  }

  flagsText(text: string): boolean {
    return !!this.pattern && this.pattern.test(text.normalize("NFKC"));
  }

  flagsFile(sha256: string): boolean {
    return this.hashes.has(sha256.toLowerCase());
  }

  get screensFiles(): boolean {
    return this.hashes.size > 0;
  }
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** The lines of the file a variable names; unset: none. A file that cannot be read is refused, naming the variable. */
function lines(source: Readonly<Record<string, string | undefined>>, name: string): string[] {
  const path = source[name]?.trim();
  if (!path) return [];
  if (!existsSync(path)) throw new Error(`Invalid setting ${name}: no file at ${JSON.stringify(path)}`);
  return readFileSync(path, "utf8").split(/\r?\n/);
}

export function moderatorFromEnv(source: Readonly<Record<string, string | undefined>> = process.env): Moderator {
  const words = [...(source.MODERATION_WORDS || "").split(","), ...lines(source, "MODERATION_WORDS_FILE")];
  return new ListModerator(words, lines(source, "MODERATION_HASHES_FILE"));
}

const holder = globalThis as unknown as { __mediahostModerator?: Moderator };
export function moderator(): Moderator {
  holder.__mediahostModerator ??= moderatorFromEnv();
  return holder.__mediahostModerator;
}
export function setModerator(m: Moderator | undefined): void {
  holder.__mediahostModerator = m;
}

export async function sha256File(path: string): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(path), hash);
  return hash.digest("hex");
}
