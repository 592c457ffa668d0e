/**
 * Resumable uploads (tus 1.0, docs/resumable-uploads.md), the domain half. Each PATCH's body is
 * one stored chunk recorded by a conditional UPDATE on the offset, so any instance can resume an
 * upload and two racing PATCHes never both count; one PATCH at a time holds the row's lease.
 */
import { createWriteStream } from "node:fs";
import { open, rm, type FileHandle } from "node:fs/promises";
import { once } from "node:events";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { finished } from "node:stream/promises";
import { randomBytes } from "node:crypto";
import { env } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { newId } from "@/lib/db/ids";
import { DomainError } from "@/lib/errors";
import { collectBodyGarbage } from "@/lib/files/body-garbage";
import { ownerState, ownerTag } from "@/lib/files/owner-tag";
import { storage } from "@/lib/storage";
import { releaseReserved, reserveResumable } from "./quota";
import type { Uploader } from "./uploader";

export const DEFAULT_TUS_EXPIRY_SECONDS = 86_400;
export const TUS_CHUNK_PREFIX = "tus/";

export type ResumableState = "receiving" | "processing" | "done";

export interface ResumableUpload {
  id: string;
  subject: string;
  length: number;
  offset: number;
  metadata: string;
  chunks: string[];
  state: ResumableState;
  postCode: string | null;
  expiresAt: Date;
  folderId: string | null;
}

type Row = {
  id: string;
  subject: string;
  length: bigint;
  offset: bigint;
  metadata: string;
  chunks: string;
  state: string;
  postCode: string | null;
  expiresAt: Date;
  folderId: string | null;
};

const toUpload = (row: Row): ResumableUpload => ({
  id: row.id,
  subject: row.subject,
  length: Number(row.length),
  offset: Number(row.offset),
  metadata: row.metadata,
  chunks: parseChunks(row.chunks),
  state: row.state as ResumableState,
  postCode: row.postCode,
  expiresAt: row.expiresAt,
  folderId: row.folderId,
});

function parseChunks(json: string): string[] {
  try {
    const parsed: unknown = JSON.parse(json);
    return Array.isArray(parsed) ? parsed.filter((k): k is string => typeof k === "string") : [];
  } catch {
    return [];
  }
}

const folderOf = (id: string) => `${TUS_CHUNK_PREFIX}${id}/`;
const gone = () => DomainError.in("gone", "not_found", "This upload has expired.");
const noSuchUpload = () => new DomainError("not_found", "No such upload.");

export function tusExpirySeconds(): number {
  return env().TUS_EXPIRY_SECONDS ?? DEFAULT_TUS_EXPIRY_SECONDS;
}

/** The row and the reservation of `length` in one transaction (quota_exceeded otherwise). */
export async function createResumable(input: {
  uploader: Uploader;
  surface: string;
  length: number;
  metadata: string;
  folderId?: string | null;
  now?: Date;
}): Promise<ResumableUpload> {
  const now = input.now ?? new Date();
  const { uploader } = input;
  const id = newId();
  const expiresAt = new Date(now.getTime() + tusExpirySeconds() * 1000);
  let row: Row | undefined;
  await reserveResumable(uploader.account, input.length, now, async (tx, reservation) => {
    row = await tx.tusUpload.create({
      data: {
        id,
        surface: input.surface,
        subject: uploader.account.subject,
        userId: uploader.userId,
        teamId: uploader.teamId,
        length: BigInt(input.length),
        metadata: input.metadata,
        folderId: input.folderId ?? null,
        windowStart: reservation.windowStart,
        reservedBytes: BigInt(reservation.bytes),
        expiresAt,
      },
    });
  });
  return toUpload(row!);
}

/** 404 when unknown or someone else's (the same answer, so ids cannot be probed); `gone` once expired. */
export async function findResumable(id: string, subject: string, now = new Date()): Promise<ResumableUpload> {
  const row = await db().tusUpload.findUnique({ where: { id } });
  if (!row || row.subject !== subject) throw noSuchUpload();
  if (row.expiresAt.getTime() <= now.getTime()) {
    await removeResumable(row.id);
    throw gone();
  }
  return toUpload(row);
}

/** How long a PATCH's lock holds without renewal: a holder that crashed blocks the upload at most this long. */
export const TUS_LOCK_LEASE_MS = 30_000;
const RENEW_EVERY_MS = TUS_LOCK_LEASE_MS / 3;

export interface ResumableLock {
  token: string;
  release(): Promise<void>;
}

const lockedError = () =>
  DomainError.in("locked", "invalid_request", "Another PATCH of this upload is in progress; retry once it is over (HEAD says the offset).");

/**
 * Takes the PATCH lock before any body byte is read (docs/resumable-uploads.md, "One PATCH at a
 * time"). A lock whose holder is known dead (same machine) is taken over; another machine's lapses.
 */
export async function lockResumable(upload: ResumableUpload, start: number, now = new Date()): Promise<ResumableLock> {
  const token = `${ownerTag()}:${randomBytes(6).toString("hex")}`;
  const until = () => new Date(Date.now() + TUS_LOCK_LEASE_MS);
  const free = { OR: [{ lockedUntil: null }, { lockedUntil: { lte: now } }] };
  const where = { id: upload.id, offset: BigInt(start), state: "receiving" };
  let { count } = await db().tusUpload.updateMany({ where: { ...where, ...free }, data: { lockToken: token, lockedUntil: until() } });
  if (count !== 1) {
    const row = await db().tusUpload.findUnique({ where: { id: upload.id }, select: { offset: true, state: true, lockToken: true } });
    if (!row) throw noSuchUpload();
    if (row.state !== "receiving" || Number(row.offset) !== start) throw offsetMoved(Number(row.offset));
    const holder = row.lockToken?.split(":")[0];
    if (!holder || ownerState(holder) !== "dead") throw lockedError();
    ({ count } = await db().tusUpload.updateMany({
      where: { ...where, lockToken: row.lockToken },
      data: { lockToken: token, lockedUntil: until() },
    }));
    if (count !== 1) throw lockedError();
  }
  // Renewed while the body streams in: a slow client's PATCH may take minutes.
  const renew = setInterval(() => {
    db()
      .tusUpload.updateMany({ where: { id: upload.id, lockToken: token }, data: { lockedUntil: until() } })
      .catch(() => undefined);
  }, RENEW_EVERY_MS);
  renew.unref();
  let released = false;
  return {
    token,
    async release() {
      if (released) return;
      released = true;
      clearInterval(renew);
      // Best effort: a lock that cannot be cleared lapses with its lease.
      await db()
        .tusUpload.updateMany({ where: { id: upload.id, lockToken: token }, data: { lockToken: null, lockedUntil: null } })
        .catch(() => undefined);
    },
  };
}

const offsetMoved = (offset: number) =>
  DomainError.in(
    "conflict",
    "invalid_request",
    `Upload-Offset no longer matches the upload's offset ${offset}; HEAD it and resume from there.`,
    {
      offset,
    },
  );

export type ChunkOutcome = "complete" | "interrupted" | "too_large";

/** At most `max` bytes; `interrupted` keeps what arrived, `too_large` stops reading without killing the connection (for the 413). */
export async function receiveBody(
  source: Readable,
  path: string,
  max: number,
  onTooLarge: () => void,
): Promise<{ bytes: number; outcome: ChunkOutcome }> {
  const out = createWriteStream(path, { highWaterMark: 1024 * 1024 });
  const garbage = collectBodyGarbage();
  let bytes = 0;
  const outcome = await new Promise<ChunkOutcome>((resolve) => {
    let settled = false;
    const settle = (value: ChunkOutcome) => {
      if (settled) return;
      settled = true;
      source.off("data", onData);
      source.off("end", onEnd);
      source.off("error", onBroken);
      source.off("close", onClose);
      source.off("aborted", onBroken);
      resolve(value);
    };
    const onData = (chunk: Buffer) => {
      if (bytes + chunk.length > max) {
        settle("too_large");
        onTooLarge();
        return;
      }
      bytes += chunk.length;
      garbage.received(chunk.length);
      if (!out.write(chunk)) {
        source.pause();
        out.once("drain", () => {
          if (!settled) source.resume();
        });
      }
    };
    const onEnd = () => settle("complete");
    const onBroken = () => settle("interrupted");
    // 'close' without 'end' first: the connection broke.
    const onClose = () => settle(source.readableEnded ? "complete" : "interrupted");
    source.on("data", onData);
    source.on("end", onEnd);
    source.on("error", onBroken);
    source.on("close", onClose);
    source.on("aborted", onBroken);
    if (source.readableEnded) settle("complete");
    else if (source.destroyed) settle("interrupted");
  });
  out.end();
  await finished(out);
  return { bytes, outcome };
}

/**
 * Adds a chunk received at `start`; the offset moves only if still `start` (else a conflict and
 * the chunk is deleted). Reaching `length` gives the reservation back in the same transaction.
 */
export async function appendChunk(
  upload: ResumableUpload,
  start: number,
  path: string,
  bytes: number,
  lock: ResumableLock,
): Promise<ResumableUpload> {
  if (bytes === 0) return upload;
  const key = `${folderOf(upload.id)}${String(start).padStart(15, "0")}-${randomBytes(4).toString("hex")}`;
  await storage().putFile(key, path, "application/octet-stream");
  const offset = start + bytes;
  const complete = offset === upload.length;
  const chunks = [...upload.chunks, key];
  const moved = await db().$transaction(async (tx) => {
    const { count } = await tx.tusUpload.updateMany({
      where: { id: upload.id, offset: BigInt(start), state: "receiving", lockToken: lock.token },
      data: { offset: BigInt(offset), chunks: JSON.stringify(chunks), ...(complete ? { state: "processing", reservedBytes: 0n } : {}) },
    });
    if (count !== 1) return false;
    if (complete) {
      const row = await tx.tusUpload.findUniqueOrThrow({ where: { id: upload.id }, select: { subject: true, windowStart: true } });
      await releaseReserved(tx, { subject: row.subject, windowStart: row.windowStart, bytes: upload.length });
    }
    return true;
  });
  if (!moved) {
    await storage()
      .delete(key)
      .catch(() => undefined);
    throw DomainError.in(
      "conflict",
      "invalid_request",
      "Upload-Offset no longer matches the upload's offset; HEAD it and resume from there.",
    );
  }
  return { ...upload, offset, chunks, state: complete ? "processing" : "receiving" };
}

/**
 * The whole file from its chunks, using them up so a large upload needs little more than its
 * length of temporary space (docs/resumable-uploads.md, "Disk space").
 */
export async function assembleResumable(upload: ResumableUpload, tmpDir: string, name = "part-0"): Promise<string> {
  const path = join(/*turbopackIgnore: true*/ tmpDir, name);
  const store = storage();
  const moveOut = store.moveOut?.bind(store);
  const [first, ...rest] = upload.chunks;
  if (first === undefined || !moveOut || !(await moveOut(first, path))) {
    await streamChunks(upload.chunks, path);
    return path;
  }
  const out = await open(path, "r+");
  try {
    let at = (await out.stat()).size;
    const piece = pieceSize(upload.length);
    for (const [i, key] of rest.entries()) {
      const chunkPath = join(/*turbopackIgnore: true*/ tmpDir, `${name}.chunk-${i}`);
      if (!(await moveOut(key, chunkPath))) throw new Error(`tus chunk ${key} is missing`);
      at += await appendByTruncating(out, at, chunkPath, piece);
    }
  } finally {
    await out.close();
  }
  return path;
}

/** Pieces of a chunk appended at a time: the most bytes held twice (1/16 of the upload, 64 KiB to 8 MiB). */
const pieceSize = (length: number): number => Math.min(8 * 1024 * 1024, Math.max(64 * 1024, Math.ceil(length / 16)));

/** Copies `source` into `out` last piece first, truncating it behind each piece so its blocks free as it goes. */
async function appendByTruncating(out: FileHandle, at: number, source: string, piece: number): Promise<number> {
  const input = await open(source, "r+");
  try {
    const size = (await input.stat()).size;
    const buffer = Buffer.allocUnsafe(Math.min(piece, Math.max(size, 1)));
    for (let end = size; end > 0; ) {
      const start = Math.max(0, end - buffer.length);
      const length = end - start;
      for (let got = 0; got < length; ) {
        const { bytesRead } = await input.read(buffer, got, length - got, start + got);
        if (bytesRead === 0) throw new Error("a tus chunk shrank while it was being appended");
        got += bytesRead;
      }
      await out.write(buffer, 0, length, at + start);
      await input.truncate(start);
      end = start;
    }
    return size;
  } finally {
    await input.close();
    await rm(source, { force: true });
  }
}

async function streamChunks(keys: readonly string[], path: string): Promise<void> {
  const out = createWriteStream(path, { highWaterMark: 1024 * 1024 });
  try {
    for (const key of keys) {
      const object = await storage().open(key);
      if (!object) throw new Error(`tus chunk ${key} is missing`);
      for await (const chunk of object.body as AsyncIterable<Buffer>) {
        if (!out.write(chunk)) await once(out, "drain");
      }
      await storage().delete(key);
    }
  } finally {
    out.end();
    await once(out, "close").catch(() => undefined);
  }
  // A failed write (a full disk) must not pass for the whole file.
  if (out.errored) throw out.errored;
}

export async function finishResumable(id: string, postCode: string): Promise<void> {
  await db().tusUpload.updateMany({ where: { id }, data: { state: "done", postCode, chunks: "[]" } });
  // The post exists: a chunk that cannot be deleted now must not fail the request that made
  // it. What is left goes with the upload at its expiry (removeResumable).
  await storage()
    .deletePrefix(folderOf(id))
    .catch((error: unknown) =>
      console.warn(`tus ${id}: chunks left until expiry (${error instanceof Error ? error.message : String(error)})`),
    );
}

/** Removes an upload and its reservation in one transaction only the first caller wins; returns whether this call did. */
export async function removeResumable(id: string): Promise<boolean> {
  await storage().deletePrefix(folderOf(id));
  const removed = await db().$transaction(async (tx) => {
    const row = await tx.tusUpload.findUnique({ where: { id }, select: { subject: true, windowStart: true, reservedBytes: true } });
    if (!row) return false;
    const { count } = await tx.tusUpload.deleteMany({ where: { id } });
    if (count !== 1) return false;
    await releaseReserved(tx, { subject: row.subject, windowStart: row.windowStart, bytes: Number(row.reservedBytes) });
    return true;
  });
  // Again once the row is gone: a PATCH in flight may have stored and recorded a chunk
  // between the first pass and the delete, and no later PATCH can (its UPDATE finds no row).
  await storage().deletePrefix(folderOf(id));
  return removed;
}

export async function terminateResumable(upload: ResumableUpload): Promise<void> {
  if (upload.state === "processing") {
    throw DomainError.in("conflict", "invalid_request", "The upload is complete and being processed; it can no longer be terminated.");
  }
  await removeResumable(upload.id);
}

export interface TusSweep {
  expired: number;
}

/** The recovery sweep's part (docs/crash-recovery.md). */
export async function sweepExpiredResumables(now = new Date()): Promise<TusSweep> {
  const rows = await db().tusUpload.findMany({ where: { expiresAt: { lte: now } }, select: { id: true }, take: 1000 });
  let expired = 0;
  for (const row of rows) if (await removeResumable(row.id)) expired++;
  return { expired };
}
