/**
 * `admin import dir` (docs/admin-cli.md, "Importing a directory"): POST /upload's pipeline, one
 * post per file; a file whose SHA-256 this user already imported is skipped.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { copyFile, lstat, readdir } from "node:fs/promises";
import { join, relative } from "node:path";
import { env } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { sniffFile } from "@/lib/media/sniff";
import { detectOtherKind } from "./file-kind";
import { DomainError, isDomainError } from "@/lib/errors";
import { addToFolder, folderForUpload } from "@/lib/folders/folders";
import type { Privacy } from "@/lib/posts/privacy";
import type { AccountSummary } from "@/lib/types/principal";
import { withTempDir } from "@/lib/files/temp";
import { publishUpload } from "./publish";
import { uploaderFor } from "./uploader";

export interface ImportOptions {
  privacy: Privacy;
  folder?: string;
  dryRun: boolean;
  ignoreQuota: boolean;
  progress: (line: string) => void;
}

export interface ImportSummary {
  imported: { path: string; code: string }[];
  wouldImport: string[];
  skipped: { path: string; reason: string }[];
}

/** Regular files under `root`, sorted; symbolic links are not followed (a loop, or files outside). */
async function filesUnder(root: string): Promise<{ files: string[]; skipped: { path: string; reason: string }[] }> {
  const files: string[] = [];
  const skipped: { path: string; reason: string }[] = [];
  const walk = async (dir: string) => {
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) files.push(path);
      else
        skipped.push({
          path: relative(root, path),
          reason: entry.isSymbolicLink() ? "symbolic link (not followed)" : "not a regular file",
        });
    }
  };
  const top = await lstat(root).catch(() => null);
  if (!top?.isDirectory()) throw new DomainError("invalid_request", `PATH ${root} is not a directory.`);
  await walk(root);
  return { files, skipped };
}

function sha256Of(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash("sha256");
    createReadStream(path)
      .on("data", (chunk) => hash.update(chunk))
      .on("end", () => resolve(hash.digest("hex")))
      .on("error", reject);
  });
}

const reasonOf = (error: unknown): string => (isDomainError(error) ? `${error.type}: ${error.message}` : String(error));

export async function importDirectory(account: AccountSummary, root: string, options: ImportOptions): Promise<ImportSummary> {
  if (account.suspended) throw new DomainError("suspended", `${account.username} is suspended.`);
  const { files, skipped } = await filesUnder(root);
  // The same uploader as the user's own key (plan limits, quota account); the quota can be lifted for an operator's import.
  const base = uploaderFor({ kind: "session", user: account, sessionId: "admin-import" });
  const uploader = options.ignoreQuota ? { ...base, account: { ...base.account, quota: Number.MAX_SAFE_INTEGER } } : base;
  const folderId = options.folder && !options.dryRun ? await folderForUpload(account.id, options.folder) : null;
  const summary: ImportSummary = { imported: [], wouldImport: [], skipped };
  const seen = new Set<string>();

  for (const [i, path] of files.entries()) {
    const name = relative(root, path);
    const step = `[${i + 1}/${files.length}] ${name}`;
    const skip = (reason: string) => {
      summary.skipped.push({ path: name, reason });
      options.progress(`${step}: skipped (${reason})`);
    };
    try {
      const stat = await lstat(path);
      if (stat.size > uploader.limits.uploadFileBytes) {
        skip(`file_too_large: over the plan's ${uploader.limits.uploadFileBytes} bytes per file`);
        continue;
      }
      const sha256 = await sha256Of(path);
      const earlier =
        seen.has(sha256) || (await db().importedFile.findUnique({ where: { userId_sha256: { userId: account.id, sha256 } } }));
      if (earlier) {
        skip("already imported (same content)");
        continue;
      }
      seen.add(sha256);
      if (options.dryRun) {
        // The type decides as an upload would (a real run skips the same files with this reason).
        if (!(await acceptedType(path, name, stat.size))) {
          skip("unsupported_type: not a type this server accepts (UPLOAD_FILES)");
          continue;
        }
        summary.wouldImport.push(name);
        options.progress(`${step}: would import`);
        continue;
      }
      const code = await importOne(uploader, { path, name, sha256, size: stat.size, mtime: stat.mtime }, options.privacy);
      if (folderId) await addToFolder(folderId, [code.id]);
      summary.imported.push({ path: name, code: code.code });
      options.progress(`${step}: imported as ${code.code}`);
    } catch (error) {
      skip(reasonOf(error));
    }
  }
  return summary;
}

async function acceptedType(path: string, name: string, size: number): Promise<boolean> {
  if (await sniffFile(path)) return true;
  return (await detectOtherKind(path, name, size, env().UPLOAD_FILES)) !== null;
}

async function importOne(
  uploader: ReturnType<typeof uploaderFor>,
  file: { path: string; name: string; sha256: string; size: number; mtime: Date },
  privacy: Privacy,
): Promise<{ id: string; code: string }> {
  const { name, sha256, mtime } = file;
  const outcome = await withTempDir(async (tmpDir) => {
    // A copy, as a request's part would be: the pipeline may move or delete what it is given.
    const path = join(tmpDir, "import");
    await copyFile(file.path, path);
    return publishUpload(
      uploader,
      "api",
      [{ index: 0, filename: name.split(/[\\/]/).pop() ?? name, path, size: file.size, sha256 }],
      // Priority delivery off: an import must not spend the user's priority minutes.
      { privacy, keepMetadata: false, priority: false, postType: "single", expiry: {} },
      tmpDir,
    );
  });
  const post = outcome.posts[0];
  // The file's own time, not the import's: the gallery then sorts imports where they belong.
  const createdAt = mtime.getTime() > 0 && mtime.getTime() <= Date.now() ? mtime : new Date();
  await db().$transaction([
    db().post.update({ where: { id: post.id }, data: { createdAt } }),
    db().postWord.updateMany({ where: { postId: post.id }, data: { postCreatedAt: createdAt } }),
    db().importedFile.create({ data: { userId: uploader.userId, sha256, postId: post.id, path: name } }),
  ]);
  return { id: post.id, code: post.code };
}
