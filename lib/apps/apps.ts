/** Apps: named api-keys of a user (docs/keys.md). A key is shown once; only its SHA-256 is stored. */
import { db, type Tx } from "@/lib/db/client";
import { hashKey, hashesEqual, issueKey } from "@/lib/crypto/keys";
import { DomainError } from "@/lib/errors";
import { isRecordNotFound, WRITE_TRANSACTION } from "@/lib/prisma-support";

export const MAX_APPS_PER_USER = 10;
export const APP_NAME_MAX_LENGTH = 50;

export interface AppRecord {
  id: string;
  userId: string;
  name: string;
  /** First characters of the current key, to tell keys apart; the key itself is never stored. */
  keyHint: string | null;
  galleryAccess: boolean;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  createdAt: Date;
}

/** An app together with its key: the only moment the key exists outside the client. */
export interface IssuedApp {
  app: AppRecord;
  key: string;
}

export interface CreateAppInput {
  userId: string;
  name?: string;
  galleryAccess?: boolean;
}

export interface AppScope {
  userId?: string;
}

const appSelect = {
  id: true,
  userId: true,
  name: true,
  keyHint: true,
  galleryAccess: true,
  revokedAt: true,
  lastUsedAt: true,
  createdAt: true,
} as const;

function appName(name: string): string {
  const value = name.trim();
  if (!value || value.length > APP_NAME_MAX_LENGTH) {
    throw new DomainError("invalid_request", `App names are 1 to ${APP_NAME_MAX_LENGTH} characters.`);
  }
  return value;
}

/**
 * The owner's row is written first so concurrent creations for one user run one after the
 * other; otherwise two requests could both count 9 apps and both insert.
 */
async function lockUser(tx: Tx, userId: string): Promise<void> {
  try {
    await tx.user.update({ where: { id: userId }, data: { updatedAt: new Date() }, select: { id: true } });
  } catch (error) {
    if (isRecordNotFound(error)) throw new DomainError("not_found", `No user '${userId}'.`);
    throw error;
  }
}

async function ensureRoomForApp(tx: Tx, userId: string): Promise<void> {
  const working = await tx.app.count({ where: { userId, revokedAt: null } });
  if (working >= MAX_APPS_PER_USER) {
    throw new DomainError("forbidden", `A user can have at most ${MAX_APPS_PER_USER} apps; revoke one before creating another.`);
  }
}

async function findApp(appId: string, scope: AppScope): Promise<AppRecord> {
  const app = await db().app.findUnique({ where: { id: appId }, select: appSelect });
  // Another user's app is reported as missing, not forbidden: its existence is not theirs to learn.
  if (!app || (scope.userId !== undefined && app.userId !== scope.userId)) {
    throw new DomainError("not_found", `No app '${appId}'.`);
  }
  return app;
}

export async function createApp(input: CreateAppInput): Promise<IssuedApp> {
  const name = input.name === undefined ? undefined : appName(input.name);
  const issued = issueKey("app");
  const app = await db().$transaction(async (tx) => {
    await lockUser(tx, input.userId);
    await ensureRoomForApp(tx, input.userId);
    // Numbered by every app the user ever had, so a default name is never reused.
    const ever = await tx.app.count({ where: { userId: input.userId } });
    return tx.app.create({
      data: {
        userId: input.userId,
        name: name ?? `App ${ever + 1}`,
        keyHash: issued.hash,
        keyHint: issued.hint,
        galleryAccess: input.galleryAccess ?? false,
      },
      select: appSelect,
    });
  }, WRITE_TRANSACTION);
  return { app, key: issued.key };
}

/** The row stays so the owner can see what was revoked and regenerate it later. */
export async function revokeApp(appId: string, scope: AppScope = {}): Promise<AppRecord> {
  const app = await findApp(appId, scope);
  if (app.revokedAt) return app;
  // Conditional, so a concurrent revoke cannot overwrite the first revokedAt.
  await db().app.updateMany({ where: { id: appId, revokedAt: null }, data: { keyHash: null, revokedAt: new Date() } });
  return findApp(appId, scope);
}

/**
 * The old key stops working at once. A revoked app regenerates into a working one (what an
 * owner who revoked a leaked key wants), so it counts towards MAX_APPS_PER_USER again.
 */
export async function regenerateApp(appId: string, scope: AppScope = {}): Promise<IssuedApp> {
  const current = await findApp(appId, scope);
  const issued = issueKey("app");
  const data = { keyHash: issued.hash, keyHint: issued.hint, revokedAt: null };
  if (!current.revokedAt) {
    const app = await db().app.update({ where: { id: appId }, data, select: appSelect });
    return { app, key: issued.key };
  }
  const app = await db().$transaction(async (tx) => {
    await lockUser(tx, current.userId);
    await ensureRoomForApp(tx, current.userId);
    return tx.app.update({ where: { id: appId }, data, select: appSelect });
  }, WRITE_TRANSACTION);
  return { app, key: issued.key };
}

export async function listApps(userId: string): Promise<AppRecord[]> {
  return db().app.findMany({ where: { userId }, select: appSelect, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
}

/** Uploader configurations must not embed a key that would not work. */
export async function verifyAppKey(appId: string, key: string): Promise<AppRecord> {
  const row = await db().app.findUnique({ where: { id: appId }, select: { ...appSelect, keyHash: true } });
  if (!row) throw new DomainError("not_found", `No app '${appId}'.`);
  const { keyHash, ...app } = row;
  if (app.revokedAt || !keyHash) {
    throw new DomainError("invalid_request", "This app is revoked; regenerate it to get a working key.");
  }
  if (!hashesEqual(keyHash, hashKey(key.trim()))) {
    throw new DomainError("invalid_request", "That key is not the current key of this app.");
  }
  return app;
}

export async function setGalleryAccess(appId: string, galleryAccess: boolean, scope: AppScope = {}): Promise<AppRecord> {
  await findApp(appId, scope);
  return db().app.update({ where: { id: appId }, data: { galleryAccess }, select: appSelect });
}
