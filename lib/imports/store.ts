/** The write side of an import (docs/migrate.md): a post or short link, then its record and old addresses in one transaction. */
import { join } from "node:path";
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { withTempDir } from "@/lib/files/temp";
import { addToFolder, folderForUpload } from "@/lib/folders/folders";
import { createLink, LINK_CODE_PATTERN } from "@/lib/links/links";
import { isShareCode } from "@/lib/posts/codes";
import type { Privacy } from "@/lib/posts/privacy";
import { deletePostAsOperator } from "@/lib/posts/remove";
import { isUniqueViolation } from "@/lib/prisma-support";
import { publishUpload } from "@/lib/uploads/publish";
import type { Uploader } from "@/lib/uploads/uploader";
import type { PeerFile } from "./peer-files";
import type { OldPath, SourceFile, SourceLink } from "./source";

export async function alreadyImported(source: string, key: string): Promise<boolean> {
  const row = await db().importedItem.findUnique({ where: { source_key: { source, key } }, select: { postId: true, shortLinkId: true } });
  return row !== null && (row.postId !== null || row.shortLinkId !== null);
}

/**
 * The claim written before an item is made: a run killed before the record leaves it, and the next
 * run adopts what was made instead of making it twice. Returns the earlier claim's time.
 */
async function claim(source: string, key: string, userId: string): Promise<Date | null> {
  const earlier = await db().importedItem.findUnique({ where: { source_key: { source, key } }, select: { createdAt: true } });
  if (earlier) return earlier.createdAt;
  await db().importedItem.create({ data: { source, key, userId } });
  return null;
}

const dropClaim = (source: string, key: string): Promise<unknown> =>
  db()
    .importedItem.deleteMany({ where: { source, key, postId: null, shortLinkId: null } })
    .catch(() => undefined);

function orphanPost(userId: string, since: Date, size: number): Promise<{ id: string; code: string } | null> {
  return db().post.findFirst({
    where: { userId, createdAt: { gte: since }, fileCount: 1, totalSize: BigInt(size), importedItems: { none: {} }, imports: { none: {} } },
    select: { id: true, code: true },
    orderBy: { createdAt: "asc" },
  });
}

function orphanLink(userId: string, since: Date, url: string) {
  return db().shortLink.findFirst({
    where: { userId, createdAt: { gte: since }, url, importedItems: { none: {} } },
    orderBy: { createdAt: "asc" },
  });
}

async function takenPaths(paths: readonly OldPath[]): Promise<Set<string>> {
  if (!paths.length) return new Set();
  const rows = await db().importRedirect.findMany({
    where: { OR: paths.map((p) => ({ host: p.host, path: p.path })) },
    select: { host: true, path: true },
  });
  return new Set(rows.map((r) => `${r.host}${r.path}`));
}

export interface StoredItem {
  code: string;
  clashes: string[];
  folderProblem?: string;
}

function distinct(paths: readonly OldPath[]): OldPath[] {
  const seen = new Set<string>();
  return paths.filter((p) => {
    const key = `${p.host}${p.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export async function storeFile(
  source: string,
  uploader: Uploader,
  file: SourceFile & { file: PeerFile; size: number },
  privacy: Privacy,
): Promise<StoredItem> {
  const claimedAt = await claim(source, file.key, uploader.userId);
  let post: { id: string; code: string };
  try {
    post = (claimedAt && (await orphanPost(uploader.userId, claimedAt, file.size))) || (await uploadOne(uploader, file, privacy));
  } catch (error) {
    await dropClaim(source, file.key);
    throw error;
  }
  const code = file.codeHint && isShareCode(file.codeHint) && !(await codeTaken(file.codeHint)) ? file.codeHint : post.code;
  const oldPaths = distinct(file.oldPaths);
  const taken = await takenPaths(oldPaths);
  const paths = oldPaths.filter((p) => !taken.has(`${p.host}${p.path}`));
  const createdAt = file.createdAt.getTime() > 0 && file.createdAt.getTime() <= Date.now() ? file.createdAt : new Date();
  try {
    await db().$transaction([
      db().post.update({ where: { id: post.id }, data: { code, createdAt, viewCount: Math.max(0, file.views) } }),
      db().postWord.updateMany({ where: { postId: post.id }, data: { postCreatedAt: createdAt } }),
      db().importedItem.update({ where: { source_key: { source, key: file.key } }, data: { postId: post.id } }),
      ...paths.map((p) => db().importRedirect.create({ data: { host: p.host, path: p.path, target: p.target, postId: post.id } })),
    ]);
  } catch (error) {
    // The post would be imported again by the next run: it goes now, so no run leaves a twin.
    await deletePostAsOperator(post.code).catch(() => undefined);
    await dropClaim(source, file.key);
    throw error;
  }
  const clashes = oldPaths.filter((p) => taken.has(`${p.host}${p.path}`)).map((p) => `${p.host}${p.path}`);
  try {
    if (file.folder) await addToFolder(await folderFor(uploader.userId, file.folder), [post.id]);
  } catch (error) {
    // The post is in and recorded: a folder name this service refuses costs the folder, not the file.
    return { code, clashes, folderProblem: error instanceof Error ? error.message : String(error) };
  }
  return { code, clashes };
}

async function uploadOne(uploader: Uploader, file: SourceFile & { file: PeerFile; size: number }, privacy: Privacy) {
  const outcome = await withTempDir(async (tmpDir) => {
    // A copy, as a request's part would be: the pipeline may move or delete what it is given.
    const path = join(tmpDir, "import");
    await file.file.copyTo(path);
    return publishUpload(
      uploader,
      "api",
      [{ index: 0, filename: file.name, path, size: file.size }],
      {
        // Passwords hashed by the peer cannot be checked here: such a file is never left open.
        privacy: file.passwordProtected || file.hidden ? "private" : privacy,
        // Byte-exact: the file as the peer served it (docs/migrate.md).
        keepMetadata: true,
        priority: false,
        postType: "single",
        expiry: { expiresAt: file.expiresAt, maxViews: file.maxViews },
      },
      tmpDir,
    );
  });
  return outcome.posts[0];
}

const codeTaken = async (code: string): Promise<boolean> =>
  (await db().post.findUnique({ where: { code }, select: { id: true } })) !== null;

async function folderFor(userId: string, folder: NonNullable<SourceFile["folder"]>): Promise<string> {
  const id = await folderForUpload(userId, folder.name);
  if (folder.public) await db().folder.update({ where: { id }, data: { privacy: "public" } });
  return id;
}

export async function storeLink(source: string, userId: string, link: SourceLink): Promise<StoredItem> {
  if (link.passwordProtected) throw new DomainError("invalid_request", "password-protected link: the peer's hash cannot be checked here");
  const claimedAt = await claim(source, link.key, userId);
  let created: { id: string; code: string };
  try {
    created = (claimedAt && (await orphanLink(userId, claimedAt, link.destination))) || (await newLink(userId, link));
  } catch (error) {
    await dropClaim(source, link.key);
    throw error;
  }
  const oldPaths = distinct(link.oldPaths);
  const taken = await takenPaths(oldPaths);
  const paths = oldPaths.filter((p) => !taken.has(`${p.host}${p.path}`));
  try {
    await db().$transaction([
      db().shortLink.update({ where: { id: created.id }, data: { clickCount: Math.max(0, link.clicks), createdAt: link.createdAt } }),
      db().importedItem.update({ where: { source_key: { source, key: link.key } }, data: { shortLinkId: created.id } }),
      ...paths.map((p) => db().importRedirect.create({ data: { host: p.host, path: p.path, target: "link", shortLinkId: created.id } })),
    ]);
  } catch (error) {
    await db()
      .shortLink.delete({ where: { id: created.id } })
      .catch(() => undefined);
    await dropClaim(source, link.key);
    throw error;
  }
  return { code: created.code, clashes: oldPaths.filter((p) => taken.has(`${p.host}${p.path}`)).map((p) => `${p.host}${p.path}`) };
}

async function newLink(userId: string, link: SourceLink): Promise<{ id: string; code: string }> {
  const wanted = link.codeHint && LINK_CODE_PATTERN.test(link.codeHint) ? link.codeHint : undefined;
  try {
    return await createLink(userId, { url: link.destination, code: wanted, maxClicks: link.maxClicks });
  } catch (error) {
    if (!wanted || !(error instanceof DomainError) || !/is taken/.test(error.message)) throw error;
    return createLink(userId, { url: link.destination, maxClicks: link.maxClicks });
  }
}

export async function recordHosts(source: string, hosts: readonly string[]): Promise<void> {
  for (const host of hosts) {
    try {
      await db().importHost.upsert({ where: { host }, create: { host, source }, update: {} });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
  }
}

export async function importedAccount(source: string, userKey: string): Promise<string | null> {
  const row = await db().importedItem.findUnique({ where: { source_key: { source, key: userKey } }, select: { userId: true } });
  return row?.userId ?? null;
}

export async function recordAccount(source: string, userKey: string, userId: string): Promise<void> {
  await db().importedItem.create({ data: { source, key: userKey, userId } });
}
