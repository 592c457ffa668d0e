/**
 * The two providers never drift apart (docs/database.md): each schema has its migration,
 * the migrations replay to exactly the schema, both providers have the same migration
 * folders, and the real migrator (lib/db/migrator.ts) builds a working database from
 * nothing, idempotently. PostgreSQL parts run when TEST_DATABASE_URL is set, and fail
 * (not skip) when it is set but unreachable.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import type { DatabaseConfig } from "@/lib/db/config";
import { folderDrift, postgresReplayDrift, snapshotDrift, sqliteReplayDrift, withTempSchema } from "@/lib/db/drift";
import { Prisma } from "@/lib/db/generated/sqlite/client";
import { applyMigrations, migrationList } from "@/lib/db/migrator";

const GB = 1024n ** 3n;
type ModelName = (typeof Prisma.ModelName)[keyof typeof Prisma.ModelName];

/**
 * One row of every model, wired through their relations, then read back. The counts map
 * is a Record over every model name, so a new model without a row here fails to compile
 * (and the runtime check below catches it too).
 */
async function roundTripEveryModel(db: Db): Promise<void> {
  const alice = await db.user.create({
    data: { username: "alice", displayUsername: "Alice", email: "alice@example.com", quotaOverride: 5n * GB },
  });
  const bob = await db.user.create({ data: { username: "bob", displayUsername: "Bob" } });
  await db.oAuthAccount.create({ data: { userId: alice.id, provider: "github", providerAccountId: "42" } });
  await db.invite.create({ data: { code: "invite-1", createdById: alice.id, usedById: bob.id, usedAt: new Date() } });
  await db.app.create({ data: { userId: alice.id, name: "ShareX", keyHash: "app-hash", galleryAccess: true } });
  await db.relaySession.create({ data: { userId: alice.id, keyHash: "session-hash", name: "Firefox on Linux" } });
  const team = await db.team.create({ data: { name: "Team", ownerId: alice.id, keyHash: "team-hash" } });
  await db.teamMember.create({ data: { teamId: team.id, userId: bob.id } });
  const post = await db.post.create({ data: { code: "abc123", userId: alice.id, privacy: "public", title: "Cat" } });
  await db.post.create({ data: { code: "team01", teamId: team.id, userId: bob.id } });
  await db.file.create({
    data: {
      postId: post.id,
      index: 0,
      name: "cat.mp4",
      storageKey: "k/cat.mp4",
      size: 50n * GB,
      mimeType: "video/mp4",
      width: 1280,
      height: 720,
      duration: 10.5,
    },
  });
  await db.postWord.create({ data: { word: "cat", postId: post.id, postCreatedAt: post.createdAt } });
  const image = await db.file.create({
    data: { postId: post.id, index: 1, name: "shot.png", storageKey: "k/shot.png", size: 1n, mimeType: "image/png" },
  });
  await db.fileText.create({ data: { fileId: image.id, language: "eng", confidence: 91.5, text: "Connection refused" } });
  await db.searchWord.create({
    data: { word: "refused", source: image.id, fileId: image.id, postId: post.id, postCreatedAt: post.createdAt },
  });
  await db.postAccess.create({ data: { postId: post.id, userId: bob.id } });
  await db.postViewDay.create({ data: { postId: post.id, day: "2026-01-01", views: 3 } });
  await db.postViewHour.create({ data: { postId: post.id, hour: "2026-01-01T13", views: 3 } });
  await db.like.create({ data: { postId: post.id, userId: bob.id } });
  const comment = await db.comment.create({ data: { postId: post.id, userId: bob.id, body: "nice" } });
  await db.commentLike.create({ data: { commentId: comment.id, userId: alice.id } });
  await db.follow.create({ data: { followerId: bob.id, followingId: alice.id } });
  await db.block.create({ data: { blockerId: alice.id, blockedId: bob.id } });
  const notification = await db.notification.create({
    data: { userId: alice.id, kind: "like", groupKey: `like:${post.id}`, postId: post.id },
  });
  await db.notificationActor.create({ data: { notificationId: notification.id, userId: bob.id } });
  await db.notificationPreference.create({ data: { userId: alice.id, follows: false } });
  await db.report.create({ data: { reporterId: bob.id, targetType: "post", postId: post.id, ip: "203.0.113.7" } });
  await db.usageDay.create({ data: { subject: `u:${alice.id}`, day: "2026-01-01", bytes: 50n * GB, uploadCount: 1 } });
  await db.usageHour.create({ data: { subject: `u:${alice.id}`, hour: "2026-01-01T13", bytes: 50n * GB, uploadCount: 1 } });
  await db.usageWindow.create({ data: { subject: `u:${alice.id}`, windowStart: new Date("2026-01-01T00:00:00Z"), bytes: 50n * GB } });
  await db.job.create({ data: { kind: "hls", payload: JSON.stringify({ fileId: "x" }) } });
  await db.pendingUpload.create({
    data: {
      id: "f1",
      owner: "0a1b2c3d.0a1b2c3d.4026531836.42",
      keys: JSON.stringify(["p/x/f1.png"]),
      subject: `u:${alice.id}`,
      windowStart: new Date("2026-01-01T00:00:00Z"),
      bytes: 50n * GB,
    },
  });
  await db.tusUpload.create({
    data: {
      id: "0123456789abcdef01234567",
      surface: "api",
      subject: `u:${alice.id}`,
      userId: alice.id,
      length: 50n * GB,
      metadata: "filename Y2F0Lm1wNA==",
      windowStart: new Date("2026-01-01T00:00:00Z"),
      reservedBytes: 50n * GB,
      expiresAt: new Date("2026-01-02T00:00:00Z"),
    },
  });
  await db.totpFactor.create({ data: { userId: alice.id, secretEncrypted: "v1.a.b.c", lastStep: 59_000_000_000n } });
  await db.recoveryCode.create({ data: { userId: alice.id, codeHash: "ab".repeat(32) } });
  const soon = new Date(Date.now() + 60_000);
  await db.passwordReset.create({ data: { userId: alice.id, tokenHash: "cd".repeat(32), expiresAt: soon } });
  await db.emailChange.create({ data: { userId: alice.id, email: "new@example.com", tokenHash: "ef".repeat(32), expiresAt: soon } });
  await db.passkey.create({
    data: { id: "cred-1", userId: alice.id, name: "Phone", publicKey: "pk", counter: 7n, deviceType: "multiDevice" },
  });
  await db.user.update({ where: { id: alice.id }, data: { role: "admin" } });
  await db.auditEntry.create({
    data: { source: "web", actorId: alice.id, actorName: "Alice", action: "user.suspend", targetType: "user", targetId: bob.id },
  });

  const hook = await db.webhook.create({
    data: { userId: alice.id, url: "https://example.com/hook", secret: "whsec_x", events: "upload" },
  });
  await db.webhookDelivery.create({ data: { webhookId: hook.id, eventId: "evt_1", event: "upload", attempt: 1, status: 200, ok: true } });
  await db.shortLink.create({ data: { code: "abc1234", userId: alice.id, url: "https://example.com/", maxClicks: 3 } });
  const folder = await db.folder.create({ data: { code: "F0ld3rC0de", userId: alice.id, name: "Cats", nameKey: "cats" } });
  await db.folderPost.create({ data: { folderId: folder.id, postId: post.id } });
  const tag = await db.tag.create({ data: { userId: alice.id, name: "Cats", nameKey: "cats", color: "#64748b" } });
  await db.postTag.create({ data: { postId: post.id, tagId: tag.id } });
  const link = await db.shortLink.findUniqueOrThrow({ where: { code: "abc1234" } });
  await db.linkVisitDay.create({ data: { linkId: link.id, day: "2026-12-06", host: "example.com", visits: 2 } });
  await db.importedFile.create({ data: { userId: alice.id, sha256: "ab".repeat(32), postId: post.id, path: "a.png" } });
  await db.setting.create({ data: { name: "UPLOAD_FILES", value: "all", updatedBy: "alice" } });
  await db.instanceSetup.create({ data: { id: 1, adminId: alice.id } });
  await db.importedItem.create({ data: { source: "zipline@old.example", key: "file:1", userId: alice.id, postId: post.id } });
  await db.importRedirect.create({ data: { host: "old.example", path: "/u/a b.png", target: "file", postId: post.id } });
  await db.importHost.create({ data: { host: "old.example", source: "zipline@old.example" } });

  const counts: Record<ModelName, () => Promise<number>> = {
    User: () => db.user.count(),
    TusUpload: () => db.tusUpload.count(),
    OAuthAccount: () => db.oAuthAccount.count(),
    Invite: () => db.invite.count(),
    App: () => db.app.count(),
    RelaySession: () => db.relaySession.count(),
    Team: () => db.team.count(),
    TeamMember: () => db.teamMember.count(),
    Post: () => db.post.count(),
    File: () => db.file.count(),
    PostWord: () => db.postWord.count(),
    FileText: () => db.fileText.count(),
    SearchWord: () => db.searchWord.count(),
    PostAccess: () => db.postAccess.count(),
    PostViewDay: () => db.postViewDay.count(),
    PostViewHour: () => db.postViewHour.count(),
    Like: () => db.like.count(),
    Comment: () => db.comment.count(),
    CommentLike: () => db.commentLike.count(),
    Follow: () => db.follow.count(),
    Block: () => db.block.count(),
    Notification: () => db.notification.count(),
    NotificationActor: () => db.notificationActor.count(),
    NotificationPreference: () => db.notificationPreference.count(),
    Report: () => db.report.count(),
    UsageDay: () => db.usageDay.count(),
    UsageHour: () => db.usageHour.count(),
    UsageWindow: () => db.usageWindow.count(),
    Job: () => db.job.count(),
    PendingUpload: () => db.pendingUpload.count(),
    AuditEntry: () => db.auditEntry.count(),
    Webhook: () => db.webhook.count(),
    WebhookDelivery: () => db.webhookDelivery.count(),
    TotpFactor: () => db.totpFactor.count(),
    RecoveryCode: () => db.recoveryCode.count(),
    Passkey: () => db.passkey.count(),
    PasswordReset: () => db.passwordReset.count(),
    EmailChange: () => db.emailChange.count(),
    ShortLink: () => db.shortLink.count(),
    Folder: () => db.folder.count(),
    FolderPost: () => db.folderPost.count(),
    Tag: () => db.tag.count(),
    PostTag: () => db.postTag.count(),
    LinkVisitDay: () => db.linkVisitDay.count(),
    ImportedFile: () => db.importedFile.count(),
    Setting: () => db.setting.count(),
    InstanceSetup: () => db.instanceSetup.count(),
    ImportedItem: () => db.importedItem.count(),
    ImportRedirect: () => db.importRedirect.count(),
    ImportHost: () => db.importHost.count(),
  };
  expect(Object.keys(counts).sort()).toEqual(Object.values(Prisma.ModelName).sort());
  for (const [model, count] of Object.entries(counts)) {
    expect(await count(), model).toBeGreaterThan(0);
  }

  // Values that differ most between the providers come back intact.
  const read = await db.post.findUniqueOrThrow({ where: { code: "abc123" }, include: { files: true, user: true, words: true } });
  expect(read.files[0].size).toBe(50n * GB);
  expect(read.files[0].duration).toBe(10.5);
  expect(read.user?.quotaOverride).toBe(5n * GB);
  expect(read.createdAt).toBeInstanceOf(Date);
  expect(read.words.map((w) => w.word)).toEqual(["cat"]);
  expect((await db.user.findUniqueOrThrow({ where: { username: "alice" } })).plan).toBe("free");
}

/** Applies every migration, then again (nothing left), then uses the database. */
async function migrateTwiceAndUse(config: DatabaseConfig): Promise<void> {
  const all = migrationList(config.provider).migrationDirectories.map((d) => d.path);
  expect(all.length).toBeGreaterThan(0);
  expect(await applyMigrations(config)).toEqual(all);
  expect(await applyMigrations(config)).toEqual([]);
  const db = createDb(config);
  try {
    await roundTripEveryModel(db);
  } finally {
    await db.$disconnect();
  }
}

describe("migrations (SQLite and both providers' folders)", () => {
  it("both providers have the same migration folders", () => {
    expect(folderDrift()).toEqual([]);
  });

  it("sqlite: the schema has no change without a migration", async () => {
    expect(await snapshotDrift("sqlite")).toBe("");
  });

  it("sqlite: the migrations replay to exactly the schema", async () => {
    expect(await sqliteReplayDrift()).toBe("");
  });

  it("sqlite: the migrator builds a fresh file, idempotently, and every model works", { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "mediahost-migrate-"));
    try {
      await migrateTwiceAndUse({ provider: "sqlite", url: join(dir, "fresh.db") });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const postgresUrl = process.env.TEST_DATABASE_URL || "";

describe.runIf(postgresUrl)("migrations (PostgreSQL at TEST_DATABASE_URL)", () => {
  beforeAll(async () => {
    // Set but unreachable is a failure, never a silent skip.
    const client = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 5_000 });
    try {
      await client.connect();
      await client.query("SELECT 1");
    } catch (error) {
      throw new Error(`TEST_DATABASE_URL is set but PostgreSQL is unreachable: ${(error as Error).message}`);
    } finally {
      await client.end().catch(() => undefined);
    }
  });

  it("postgres: the schema has no change without a migration", async () => {
    expect(await snapshotDrift("postgres", postgresUrl)).toBe("");
  });

  it("postgres: the migrations replay to exactly the schema", { timeout: 60_000 }, async () => {
    expect(await postgresReplayDrift(postgresUrl)).toEqual([]);
  });

  it("postgres: the migrator builds a fresh schema, idempotently, and every model works", { timeout: 60_000 }, async () => {
    await withTempSchema(postgresUrl, (url) => migrateTwiceAndUse({ provider: "postgres", url }));
  });
});
