/**
 * Guest uploads into a folder (docs/guest-uploads.md): the owner's settings, the upload page, and
 * the folder's caps, counted by compare-and-swap so two guests at once never pass a cap.
 */
import { env } from "@/lib/config/env";
import { hashPassword, verifyPassword } from "@/lib/crypto/password";
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import type { Plan } from "@/lib/plans";

export const GUEST_PASSWORD_MIN = 8;
export const GUEST_PASSWORD_MAX = 200;
/** The largest total-files cap an owner may set. */
export const GUEST_MAX_FILES_LIMIT = 100_000;

export interface GuestSettings {
  enabled: boolean;
  passwordProtected: boolean;
  maxFileBytes: number | null;
  maxFiles: number | null;
  maxBytes: number | null;
  expiresAt: Date | null;
  files: number;
  bytes: number;
}

/** A change of the settings: absent fields stay; null removes a cap, the password or the expiry. */
export interface GuestSettingsChange {
  enabled?: boolean;
  password?: string | null;
  maxFileBytes?: number | null;
  maxFiles?: number | null;
  maxBytes?: number | null;
  expiresAt?: Date | null;
}

interface GuestColumns {
  guestUploads: boolean;
  guestPasswordHash: string | null;
  guestMaxFileBytes: bigint | null;
  guestMaxFiles: number | null;
  guestMaxBytes: bigint | null;
  guestExpiresAt: Date | null;
  guestFiles: number;
  guestBytes: bigint;
}

const num = (v: bigint | null): number | null => (v === null ? null : Number(v));

export function guestSettingsOf(row: GuestColumns): GuestSettings {
  return {
    enabled: row.guestUploads,
    passwordProtected: row.guestPasswordHash !== null,
    maxFileBytes: num(row.guestMaxFileBytes),
    maxFiles: row.guestMaxFiles,
    maxBytes: num(row.guestMaxBytes),
    expiresAt: row.guestExpiresAt,
    files: row.guestFiles,
    bytes: Number(row.guestBytes),
  };
}

/** The operator's GUEST_UPLOADS: "folders" (the default) lets owners open a folder to guests; "off" forbids it everywhere. */
export const guestUploadsAllowed = (): boolean => env().GUEST_UPLOADS !== "off";

export function guestUploadsOpen(settings: Pick<GuestSettings, "enabled" | "expiresAt">, now = new Date()): boolean {
  return settings.enabled && guestUploadsAllowed() && (settings.expiresAt === null || settings.expiresAt > now);
}

const invalid = (message: string) => new DomainError("invalid_request", message);
/** As lib/folders/folders.ts answers an unknown folder (which imports this module). */
const folderNotFound = () => new DomainError("not_found", "No such folder.");

async function passwordHashOf(password: string | null): Promise<string | null> {
  if (password === null) return null;
  const length = [...password].length;
  if (length < GUEST_PASSWORD_MIN || length > GUEST_PASSWORD_MAX) {
    throw invalid(`guest_uploads.password must be ${GUEST_PASSWORD_MIN} to ${GUEST_PASSWORD_MAX} characters.`);
  }
  return hashPassword(password);
}

/** Switching on needs GUEST_UPLOADS and zeroes the counts; switching off refuses even uploads still arriving. */
export async function changeGuestUploads(userId: string, folderId: string, change: GuestSettingsChange, now = new Date()): Promise<void> {
  const row = await db().folder.findFirst({ where: { id: folderId, userId }, select: { guestUploads: true } });
  if (!row) throw folderNotFound();
  if (change.enabled && !guestUploadsAllowed()) throw new DomainError("forbidden", "Guest uploads are turned off on this instance.");
  if (change.expiresAt && change.expiresAt <= now) throw invalid("guest_uploads.expires_at must be in the future.");
  const switchedOn = change.enabled === true && !row.guestUploads;
  await db().folder.update({
    where: { id: folderId },
    data: {
      ...(change.enabled !== undefined ? { guestUploads: change.enabled } : {}),
      ...(change.password !== undefined ? { guestPasswordHash: await passwordHashOf(change.password) } : {}),
      ...(change.maxFileBytes !== undefined
        ? { guestMaxFileBytes: change.maxFileBytes === null ? null : BigInt(change.maxFileBytes) }
        : {}),
      ...(change.maxFiles !== undefined ? { guestMaxFiles: change.maxFiles } : {}),
      ...(change.maxBytes !== undefined ? { guestMaxBytes: change.maxBytes === null ? null : BigInt(change.maxBytes) } : {}),
      ...(change.expiresAt !== undefined ? { guestExpiresAt: change.expiresAt } : {}),
      ...(switchedOn ? { guestFiles: 0, guestBytes: 0n } : {}),
    },
    select: { id: true },
  });
}

export interface GuestDrop {
  folderId: string;
  code: string;
  name: string;
  owner: { id: string; username: string; plan: Plan; quotaOverride: number | null };
  passwordHash: string | null;
  settings: GuestSettings;
  /** Files and bytes guests may still send (null: no cap). */
  filesLeft: number | null;
  bytesLeft: number | null;
}

/** Null when unknown, switched off, expired, forbidden or its owner suspended. */
export async function findGuestDrop(code: string, now = new Date()): Promise<GuestDrop | null> {
  if (!/^[A-Za-z0-9]{4,64}$/.test(code)) return null;
  const row = await db().folder.findUnique({
    where: { code },
    include: { user: { select: { id: true, displayUsername: true, plan: true, quotaOverride: true, suspended: true } } },
  });
  if (!row || row.user.suspended) return null;
  const settings = guestSettingsOf(row);
  if (!guestUploadsOpen(settings, now)) return null;
  return {
    folderId: row.id,
    code: row.code,
    name: row.name,
    owner: {
      id: row.user.id,
      username: row.user.displayUsername,
      plan: row.user.plan as Plan,
      quotaOverride: num(row.user.quotaOverride),
    },
    passwordHash: row.guestPasswordHash,
    settings,
    filesLeft: settings.maxFiles === null ? null : Math.max(0, settings.maxFiles - settings.files),
    bytesLeft: settings.maxBytes === null ? null : Math.max(0, settings.maxBytes - settings.bytes),
  };
}

/** True when `password` is the upload page's (always true for a page without one). */
export function checkGuestPassword(drop: Pick<GuestDrop, "passwordHash">, password: string): Promise<boolean> {
  if (drop.passwordHash === null) return Promise.resolve(true);
  return verifyPassword(password, drop.passwordHash);
}

export const folderFull = () => DomainError.in("exhausted", "quota_exceeded", "This folder takes no more uploads.");
export const guestUploadsClosed = () => new DomainError("not_found", "This folder takes no uploads.");

const CLAIM_TRIES = 20;

/**
 * Counts `files` files of `bytes` bytes against the folder's caps, after they arrived and
 * before they are published: 404 when the page was switched off (or expired) meanwhile, 403
 * `quota_exceeded` when they do not fit. A compare-and-swap on the counts, so concurrent
 * guests never pass a cap together.
 */
export async function claimGuestSpace(folderId: string, files: number, bytes: number, now = new Date()): Promise<void> {
  for (let attempt = 0; attempt < CLAIM_TRIES; attempt++) {
    const row = await db().folder.findUnique({ where: { id: folderId } });
    if (!row || !guestUploadsOpen(guestSettingsOf(row), now)) throw guestUploadsClosed();
    if (row.guestMaxFiles !== null && row.guestFiles + files > row.guestMaxFiles) throw folderFull();
    if (row.guestMaxBytes !== null && row.guestBytes + BigInt(bytes) > row.guestMaxBytes) throw folderFull();
    const { count } = await db().folder.updateMany({
      where: { id: folderId, guestUploads: true, guestFiles: row.guestFiles, guestBytes: row.guestBytes },
      data: { guestFiles: { increment: files }, guestBytes: { increment: BigInt(bytes) } },
    });
    if (count === 1) return;
  }
  throw new DomainError("unavailable", "The folder is busy; try again.", undefined, undefined, 1);
}

/** Gives back what files that failed after claimGuestSpace had counted. */
export async function releaseGuestSpace(folderId: string, files: number, bytes: number): Promise<void> {
  if (files <= 0 && bytes <= 0) return;
  await db().folder.updateMany({
    where: { id: folderId },
    data: { guestFiles: { decrement: files }, guestBytes: { decrement: BigInt(bytes) } },
  });
}
