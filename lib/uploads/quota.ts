/**
 * The upload path's quota bookkeeping, in one module: what an upload reserves of the weekly
 * quota before it stores anything, gives back when it stores nothing after all, and records
 * once its post exists; and the pending-upload journal that makes this crash-safe
 * (docs/crash-recovery.md). The quota itself (the atomic charge, the week's window) is
 * lib/usage/reserve.ts; on the upload side only this module calls it.
 *
 * The journal: a file's row is written in the transaction that reserves its quota, before
 * any of its objects is stored, and deleted in the transaction that writes its post. So at
 * any moment either the post exists, or a row names the objects that may exist and the bytes
 * that were charged: a process that dies in between (SIGKILL, power loss) leaves a row, and
 * the recovery sweep deletes its objects and gives its bytes back
 * (lib/recovery/pending-sweep.ts, through `abandonPending`).
 */
import { db, type Tx } from "@/lib/db/client";
import { ownerTag } from "@/lib/files/owner-tag";
import { type AlongsideReservation, type Reservation, recordUpload, releaseQuota, reserveQuota } from "@/lib/usage/reserve";

export type { Reservation };

/** Whose quota an upload uses: the account's or the team's (`subject`), and its weekly bytes. */
export interface QuotaAccount {
  subject: string;
  quota: number;
}

/** The row of one file about to be stored under `keys`, written alongside its reservation. */
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

/**
 * One file's bytes, reserved with its journal row before any of its objects (`keys`) is
 * stored; quota_exceeded (with quota, used and resets_at) when they do not fit.
 */
export function reserveFile(account: QuotaAccount, fileId: string, bytes: number, keys: readonly string[]): Promise<Reservation> {
  return reserveQuota(account.subject, bytes, account.quota, new Date(), journalPending(fileId, keys));
}

/**
 * The file was given up (storing or the post's transaction failed, or its process died) and
 * its objects are deleted: its bytes go back with its row, in one transaction, and only if
 * the row was still there, so a concurrent sweep and this can never both give them back.
 * Returns whether this call gave them back.
 */
export async function abandonPending(fileId: string, reservation: Reservation): Promise<boolean> {
  return db().$transaction(async (tx) => {
    const { count } = await tx.pendingUpload.deleteMany({ where: { id: fileId } });
    if (count !== 1) return false;
    await releaseQuota(reservation, tx);
    return true;
  });
}

/**
 * In the transaction that writes the post: the files are the post's now, not pending, and
 * the upload counts in the day's and the hour's history (GET /usage-history, /analytics).
 */
export async function settleUpload(tx: Tx, subject: string, files: readonly { id: string; size: number }[]): Promise<void> {
  await recordUpload(
    tx,
    subject,
    files.reduce((total, f) => total + f.size, 0),
    files.length,
  );
  await tx.pendingUpload.deleteMany({ where: { id: { in: files.map((f) => f.id) } } });
}

/**
 * A resumable upload's declared length, reserved at its creation; `create` writes its row in
 * the same transaction (the row holds the reservation until the last byte or its removal).
 */
export function reserveResumable(account: QuotaAccount, bytes: number, now: Date, create: AlongsideReservation): Promise<Reservation> {
  return reserveQuota(account.subject, bytes, account.quota, now, create);
}

/** Gives back what a resumable upload's row held, inside the transaction that changes the row. */
export function releaseReserved(tx: Tx, reservation: Reservation): Promise<void> {
  return releaseQuota(reservation, tx);
}
