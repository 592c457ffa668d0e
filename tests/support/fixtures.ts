/** Accounts and keys for tests, written straight to the test database. */
import { db } from "@/lib/db/client";
import { issueKey } from "@/lib/crypto/keys";
import type { Plan } from "@/lib/plans";

let counter = 0;
const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}`;

export interface TestUser {
  id: string;
  username: string;
  /** api-key of an app with gallery access. */
  apiKey: string;
  /** api-key of an app without gallery access. */
  uploadOnlyKey: string;
  /** relay-key of a session. */
  relayKey: string;
}

export async function createTestUser(options: { plan?: Plan; username?: string; suspended?: boolean } = {}): Promise<TestUser> {
  const username = options.username ?? unique("user");
  const user = await db().user.create({
    data: {
      username: username.toLowerCase(),
      displayUsername: username,
      plan: options.plan ?? "free",
      suspended: options.suspended ?? false,
    },
  });
  const gallery = issueKey("app");
  const uploadOnly = issueKey("app");
  const relay = issueKey("relay");
  // Keys already in use, as a Relay session is active from its creation: their first
  // request does not write "last used" (a write, which makes every cached read a miss).
  const lastUsedAt = new Date();
  await db().app.create({
    data: { userId: user.id, name: "Gallery", keyHash: gallery.hash, keyHint: gallery.hint, galleryAccess: true, lastUsedAt },
  });
  await db().app.create({ data: { userId: user.id, name: "Uploader", keyHash: uploadOnly.hash, keyHint: uploadOnly.hint, lastUsedAt } });
  await db().relaySession.create({ data: { userId: user.id, keyHash: relay.hash, name: "Test device" } });
  return { id: user.id, username, apiKey: gallery.key, uploadOnlyKey: uploadOnly.key, relayKey: relay.key };
}

export async function createTestTeam(ownerId: string, status: "active" | "lapsed" = "active"): Promise<{ id: string; key: string }> {
  const key = issueKey("team");
  const team = await db().team.create({ data: { name: unique("team"), ownerId, keyHash: key.hash, keyHint: key.hint, status } });
  await db().teamMember.create({ data: { teamId: team.id, userId: ownerId, role: "owner" } });
  return { id: team.id, key: key.key };
}

export interface TestPostOptions {
  privacy?: "public" | "unlisted" | "private";
  teamId?: string | null;
  moderated?: boolean;
  restricted?: boolean;
  draft?: boolean;
  title?: string | null;
  description?: string | null;
  /** Number of files (small PNG-typed blobs written to storage). */
  files?: number;
  mimeType?: string;
  createdAt?: Date;
  /** Bytes of each file (default: a short text naming it). */
  fileSize?: number;
  viewCount?: number;
}

/** A post with stored files, written directly (for rules that do not depend on media processing). */
export async function createTestPost(
  userId: string,
  options: TestPostOptions = {},
): Promise<{ id: string; code: string; names: string[]; keys: string[] }> {
  const { storage } = await import("@/lib/storage");
  const { newId } = await import("@/lib/db/ids");
  const { newShareCode } = await import("@/lib/posts/codes");
  const { indexPostWords } = await import("@/lib/posts/words");
  const { sortNameOf, totalSizeOf } = await import("@/lib/posts/sort-keys");
  const id = newId();
  const code = newShareCode();
  const count = options.files ?? 1;
  const mimeType = options.mimeType ?? "image/png";
  const ext = mimeType.split("/")[1].replace("jpeg", "jpg");
  const files: {
    id: string;
    index: number;
    name: string;
    storageKey: string;
    size: bigint;
    mimeType: string;
    width: number;
    height: number;
  }[] = [];
  for (let i = 0; i < count; i++) {
    const key = `p/${id}/${newId()}.${ext}`;
    const body = options.fileSize === undefined ? Buffer.from(`file ${i} of ${code}`) : Buffer.alloc(options.fileSize, i);
    await storage().putBuffer(key, body, mimeType);
    files.push({
      id: newId(),
      index: i,
      name: `file${i}.${ext}`,
      storageKey: key,
      size: BigInt(body.length),
      mimeType,
      width: 10,
      height: 10,
    });
  }
  const createdAt = options.createdAt ?? new Date();
  await db().$transaction(async (tx) => {
    const post = await tx.post.create({
      data: {
        id,
        code,
        userId,
        teamId: options.teamId ?? null,
        privacy: options.teamId ? "private" : (options.privacy ?? "public"),
        moderated: options.moderated ?? false,
        restricted: options.restricted ?? false,
        draft: options.draft ?? false,
        title: options.title ?? null,
        description: options.description ?? null,
        firstFileGif: mimeType === "image/gif",
        fileCount: count,
        viewCount: options.viewCount ?? 0,
        // The gallery's sort keys, as an upload and a title edit write them (docs/gallery-sort.md).
        totalSize: totalSizeOf(files),
        sortName: sortNameOf(options.title, files[0]?.name),
        createdAt,
        files: { create: files },
      },
    });
    await indexPostWords(tx, post);
  });
  return { id, code, names: files.map((f) => f.name), keys: files.map((f) => f.storageKey) };
}
