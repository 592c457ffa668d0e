/**
 * The pending-upload journal (docs/crash-recovery.md). A file's row is written in the
 * transaction that reserves its quota, before any of its objects is stored, and deleted in
 * the transaction that writes its post. So at any moment either the post exists, or a row
 * names the objects that may exist and the bytes that were charged: a process that dies in
 * between (SIGKILL, power loss) leaves a row, and the recovery sweep deletes its objects
 * and gives its bytes back (lib/recovery/pending-sweep.ts).
 */
import { db, type Tx } from "../db/client";
import { ownerTag } from "../files/owner-tag";
import { releaseQuota, type AlongsideReservation, type Reservation } from "../usage/reserve";

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

/** In the transaction that writes the post: these files are now the post's, not pending. */
export async function settlePending(tx: Tx, fileIds: readonly string[]): Promise<void> {
  await tx.pendingUpload.deleteMany({ where: { id: { in: [...fileIds] } } });
}

/**
 * The file was given up (storing or the post's transaction failed) and its objects are
 * deleted: its bytes go back with its row, in one transaction, and only if the row was
 * still there, so a concurrent sweep and this can never both give them back.
 */
export async function abandonPending(fileId: string, reservation: Reservation): Promise<void> {
  await db().$transaction(async (tx) => {
    const { count } = await tx.pendingUpload.deleteMany({ where: { id: fileId } });
    if (count === 1) await releaseQuota(reservation, tx);
  });
}
