/**
 * The upload path's quota bookkeeping and the pending-upload journal (docs/crash-recovery.md): a
 * file's row is written with its reservation before any object is stored and deleted with its
 * post, so a process that dies in between leaves a row the recovery sweep cleans up.
 */
import { db, type Tx } from "@/lib/db/client";
import { ownerTag } from "@/lib/files/owner-tag";
import { type AlongsideReservation, type Reservation, recordUpload, releaseQuota, reserveQuota } from "@/lib/usage/reserve";

export type { Reservation };

export interface QuotaAccount {
  subject: string;
  quota: number;
}

export function journalPending(fileId: string, keys: readonly string[]): AlongsideReservation {
  return async (tx, reservation) => {
    await tx.pendingUpload.create({
      data: {
        id: fileId,
        owner: ownerTag(),
        keys: JSON.stringify(keys),
        subject: reservation.subject,
        windowStart: reservation.windowStart,
        bytes: BigInt(reservation.bytes),
      },
      select: { id: true },
    });
  };
}

/** Reserved with its journal row before any of its objects is stored; quota_exceeded when it does not fit. */
export function reserveFile(account: QuotaAccount, fileId: string, bytes: number, keys: readonly string[]): Promise<Reservation> {
  return reserveQuota(account.subject, bytes, account.quota, new Date(), journalPending(fileId, keys));
}

/** Gives the bytes back with the row, only if the row was still there: a concurrent sweep and this never both give them back. */
export async function abandonPending(fileId: string, reservation: Reservation): Promise<boolean> {
  return db().$transaction(async (tx) => {
    const { count } = await tx.pendingUpload.deleteMany({ where: { id: fileId } });
    if (count !== 1) return false;
    await releaseQuota(reservation, tx);
    return true;
  });
}

/** In the post's transaction: the files are the post's now, and count in GET /usage-history and /analytics. */
export async function settleUpload(tx: Tx, subject: string, files: readonly { id: string; size: number }[]): Promise<void> {
  await recordUpload(
    tx,
    subject,
    files.reduce((total, f) => total + f.size, 0),
    files.length,
  );
  await tx.pendingUpload.deleteMany({ where: { id: { in: files.map((f) => f.id) } } });
}

export function reserveResumable(account: QuotaAccount, bytes: number, now: Date, create: AlongsideReservation): Promise<Reservation> {
  return reserveQuota(account.subject, bytes, account.quota, now, create);
}

export function releaseReserved(tx: Tx, reservation: Reservation): Promise<void> {
  return releaseQuota(reservation, tx);
}
