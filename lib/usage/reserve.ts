/** The weekly quota: a reservation is one conditional UPDATE, so concurrent requests can never together pass it. */
import { db, type Tx } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { isUniqueViolation } from "@/lib/prisma-support";
import { utcDay, utcHour, weekWindow } from "./window";

export interface Reservation {
  subject: string;
  windowStart: Date;
  bytes: number;
}

export function quotaError(quota: number, used: number, resetsAt: Date): DomainError {
  return new DomainError("quota_exceeded", "This upload would exceed the weekly quota.", undefined, {
    quota,
    used,
    resets_at: resetsAt.toISOString(),
  });
}

/** Written with a successful reservation, so a crash before the post is written leaves a record of the bytes to give back. */
export type AlongsideReservation = (tx: Tx, reservation: Reservation) => Promise<void>;

/** Throws quota_exceeded; with `alongside`, the charge and those writes are one transaction. */
export async function reserveQuota(
  subject: string,
  bytes: number,
  quota: number,
  now = new Date(),
  alongside?: AlongsideReservation,
): Promise<Reservation> {
  const window = weekWindow(now);
  const key = { subject_windowStart: { subject, windowStart: window.start } };
  const reservation: Reservation = { subject, windowStart: window.start, bytes };
  const chargeWith = async (client: Tx) => {
    const { count } = await client.usageWindow.updateMany({
      where: { subject, windowStart: window.start, bytes: { lte: BigInt(quota - bytes) } },
      data: { bytes: { increment: BigInt(bytes) } },
    });
    return count === 1;
  };
  const charge = (): Promise<boolean> =>
    alongside
      ? db().$transaction(async (tx) => {
          if (!(await chargeWith(tx))) return false;
          await alongside(tx, reservation);
          return true;
        })
      : chargeWith(db());
  // The window's row exists after the first upload of the week: one statement then.
  let charged = await charge();
  if (!charged) {
    await ensureWindow(subject, window.start);
    charged = await charge();
  }
  if (!charged) {
    const row = await db().usageWindow.findUnique({ where: key, select: { bytes: true } });
    throw quotaError(quota, Number(row?.bytes ?? 0n), window.end);
  }
  return reservation;
}

/** A plain INSERT whose unique violation is ignored: Prisma runs an upsert as four statements. */
async function ensureWindow(subject: string, windowStart: Date): Promise<void> {
  try {
    await db().usageWindow.create({ data: { subject, windowStart, bytes: 0n }, select: { subject: true } });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
}

export async function releaseQuota(reservation: Reservation, client: Tx = db()): Promise<void> {
  if (reservation.bytes <= 0) return;
  await client.usageWindow.updateMany({
    where: { subject: reservation.subject, windowStart: reservation.windowStart, bytes: { gte: BigInt(reservation.bytes) } },
    data: { bytes: { decrement: BigInt(reservation.bytes) } },
  });
}

/** Inside the transaction that writes the post, so the day and hour counters count exactly the uploads that exist. */
export async function recordUpload(client: Tx, subject: string, bytes: number, files: number, now = new Date()): Promise<void> {
  const day = utcDay(now);
  const hour = utcHour(now);
  const added = { bytes: { increment: BigInt(bytes) }, uploadCount: { increment: files } };
  await client.usageDay.upsert({
    where: { subject_day: { subject, day } },
    create: { subject, day, bytes: BigInt(bytes), uploadCount: files },
    update: added,
  });
  await client.usageHour.upsert({
    where: { subject_hour: { subject, hour } },
    create: { subject, hour, bytes: BigInt(bytes), uploadCount: files },
    update: added,
  });
}
