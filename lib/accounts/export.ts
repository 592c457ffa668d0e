/**
 * "Download my data" (docs/account-deletion.md, "Taking your data"): one zip, streamed, never
 * built in memory: each stored file is opened only when its entry's turn comes, so one storage
 * stream is open at a time.
 */
import { Readable } from "node:stream";
import type { ZipFile as YazlZipFile } from "yazl";
import { optionalPackage } from "@/lib/config/packages";
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { storage } from "@/lib/storage";

const PAGE = 200;

export interface AccountExport {
  stream: Readable;
  filename: string;
}

export const exportPath = (code: string, name: string): string => `files/${code}/${name.replace(/[/\\]/g, "_")}`;

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

function jsonArray<T>(readPage: (after: string | null) => Promise<{ id: string; item: T }[]>): Readable {
  return Readable.from(
    (async function* () {
      yield "[";
      let after: string | null = null;
      let first = true;
      for (;;) {
        const page = await readPage(after);
        for (const { item } of page) {
          yield `${first ? "\n" : ",\n"}${JSON.stringify(item)}`;
          first = false;
        }
        if (page.length < PAGE) break;
        after = page[page.length - 1].id;
      }
      yield "\n]\n";
    })(),
    { objectMode: false },
  );
}

const pageArgs = (after: string | null) => ({
  orderBy: { id: "asc" as const },
  take: PAGE,
  ...(after ? { cursor: { id: after }, skip: 1 } : {}),
});

function lazyObject(key: string) {
  return (callback: (error: Error | null, stream: Readable) => void): void => {
    storage()
      .open(key)
      .then((object) => {
        if (!object) throw new Error(`stored object ${key} is missing`);
        callback(null, object.body);
      })
      .catch((error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), Readable.from([])));
  };
}

export async function exportAccount(userId: string): Promise<AccountExport> {
  const user = await db().user.findUnique({ where: { id: userId } });
  if (!user) throw new DomainError("not_found", `No user '${userId}'.`);
  // Loaded when an export is written, not by every admin CLI command that links this module.
  const { ZipFile } = optionalPackage<typeof import("yazl")>("yazl");
  const zip: YazlZipFile = new ZipFile();
  const now = new Date();
  const account = {
    id: user.id,
    username: user.displayUsername,
    email: user.email,
    nickname: user.nickname,
    bio: user.bio,
    plan: user.plan,
    link_domain: user.linkDomain,
    created_at: iso(user.createdAt),
    exported_at: iso(now),
  };
  zip.addBuffer(Buffer.from(`${JSON.stringify(account, null, 2)}\n`), "account.json", { mtime: now });
  for (const [kind, key] of [
    ["avatar", user.avatarKey],
    ["banner", user.bannerKey],
  ] as const) {
    if (key) zip.addReadStreamLazy(`profile/${kind}.webp`, { mtime: now, compress: false }, lazyObject(key));
  }

  // The files: every post of the user, page by page; only names and keys are kept until written.
  let after: string | null = null;
  for (;;) {
    const posts: { id: string; code: string; createdAt: Date; files: { name: string; storageKey: string; size: bigint }[] }[] =
      await db().post.findMany({
        where: { userId },
        select: {
          id: true,
          code: true,
          createdAt: true,
          files: { select: { name: true, storageKey: true, size: true }, orderBy: { index: "asc" } },
        },
        ...pageArgs(after),
      });
    for (const post of posts) {
      for (const file of post.files) {
        zip.addReadStreamLazy(
          exportPath(post.code, file.name),
          { mtime: post.createdAt, compress: false, size: Number(file.size) },
          lazyObject(file.storageKey),
        );
      }
    }
    if (posts.length < PAGE) break;
    after = posts[posts.length - 1].id;
  }

  zip.addReadStream(postsJson(userId), "posts.json", { mtime: now });
  zip.addReadStream(commentsJson(userId), "comments.json", { mtime: now });
  zip.addReadStream(likesJson(userId), "likes.json", { mtime: now });
  zip.addReadStream(foldersJson(userId), "folders.json", { mtime: now });
  zip.addReadStream(linksJson(userId), "links.json", { mtime: now });
  zip.end();
  // A file that cannot be read (missing object, storage down) ends the download with an
  // error rather than a zip that looks whole.
  zip.on("error", (error: Error) => (zip.outputStream as Readable).destroy(error));
  return { stream: zip.outputStream as Readable, filename: `${user.displayUsername}-data.zip` };
}

function postsJson(userId: string): Readable {
  return jsonArray(async (after) => {
    const posts = await db().post.findMany({
      where: { userId },
      include: {
        files: { orderBy: { index: "asc" } },
        folders: { select: { folder: { select: { name: true } } } },
        tags: { select: { tag: { select: { name: true } } } },
      },
      ...pageArgs(after),
    });
    return posts.map((p) => ({
      id: p.id,
      item: {
        code: p.code,
        title: p.title,
        description: p.description,
        privacy: p.privacy,
        draft: p.draft,
        team_id: p.teamId,
        created_at: iso(p.createdAt),
        expires_at: iso(p.expiresAt),
        max_views: p.maxViews,
        view_count: p.viewCount,
        like_count: p.likeCount,
        comment_count: p.commentCount,
        folders: p.folders.map((f) => f.folder.name),
        // The owner's own labels (docs/tags.md).
        favorite: p.favorite,
        tags: p.tags.map((t) => t.tag.name).sort(),
        files: p.files.map((f) => ({
          name: f.name,
          path: exportPath(p.code, f.name),
          size: Number(f.size),
          type: f.mimeType,
          width: f.width,
          height: f.height,
          duration: f.duration,
        })),
      },
    }));
  });
}

function commentsJson(userId: string): Readable {
  return jsonArray(async (after) => {
    const comments = await db().comment.findMany({ where: { userId }, include: { post: { select: { code: true } } }, ...pageArgs(after) });
    return comments.map((c) => ({
      id: c.id,
      item: { id: c.id, post_code: c.post.code, body: c.body, like_count: c.likeCount, created_at: iso(c.createdAt) },
    }));
  });
}

function likesJson(userId: string): Readable {
  // Likes have no id of their own: paged by post id, the other half of their key.
  return jsonArray(async (after) => {
    const likes = await db().like.findMany({
      where: { userId, ...(after ? { postId: { gt: after } } : {}) },
      include: { post: { select: { code: true } } },
      orderBy: { postId: "asc" },
      take: PAGE,
    });
    return likes.map((l) => ({ id: l.postId, item: { post_code: l.post.code, created_at: iso(l.createdAt) } }));
  });
}

function foldersJson(userId: string): Readable {
  return jsonArray(async (after) => {
    const folders = await db().folder.findMany({
      where: { userId },
      include: { posts: { select: { post: { select: { code: true } } } } },
      ...pageArgs(after),
    });
    return folders.map((f) => ({
      id: f.id,
      item: { code: f.code, name: f.name, privacy: f.privacy, created_at: iso(f.createdAt), posts: f.posts.map((p) => p.post.code) },
    }));
  });
}

function linksJson(userId: string): Readable {
  return jsonArray(async (after) => {
    const links = await db().shortLink.findMany({ where: { userId }, ...pageArgs(after) });
    return links.map((l) => ({
      id: l.id,
      item: {
        code: l.code,
        url: l.url,
        click_count: l.clickCount,
        max_clicks: l.maxClicks,
        expires_at: iso(l.expiresAt),
        created_at: iso(l.createdAt),
      },
    }));
  });
}
