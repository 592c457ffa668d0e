/**
 * Pushes a large file to disk while it is still arriving.
 *
 * A received video is fsynced later anyway (storage writes durably), and the fast-start
 * edit's `fallocate --insert-range` first writes back every dirty page of the file. Left to
 * the end, that is a whole gigabyte of writeback after the last byte came in (0.8 s here);
 * started every `every` bytes in the background, the disk works while the network does, and
 * the end only has the last stretch to write. Small files never reach the first step.
 *
 * The syncs go through a descriptor of our own (read-only is enough for fdatasync on Linux),
 * so they never race the write stream closing its own.
 */
import { close, fdatasync, open } from "node:fs";

export const WRITE_BEHIND_BYTES = 64 * 1024 * 1024;

export interface WriteBehind {
  /** `total` bytes of the file have been handed to the write stream. */
  progress(total: number): void;
  /** Waits for the sync in flight, if any, and lets the descriptor go. Never throws. */
  finish(): Promise<void>;
}

export function writeBehind(path: string, every: number = WRITE_BEHIND_BYTES): WriteBehind {
  let next = every;
  let fd: Promise<number | null> | null = null;
  let inFlight: Promise<void> = Promise.resolve();
  let busy = false;

  const sync = (): void => {
    fd ??= new Promise((resolve) => open(path, "r", (error, opened) => resolve(error ? null : opened)));
    busy = true;
    inFlight = fd.then(
      (descriptor) =>
        new Promise<void>((resolve) => {
          if (descriptor === null) return resolve();
          // Failure only means the writeback is left to the final fsync.
          fdatasync(descriptor, () => resolve());
        }),
    );
    void inFlight.then(() => (busy = false));
  };

  return {
    progress(total) {
      if (total < next) return;
      next = total + every;
      // One at a time: a slow disk gets the next step when it is done with this one.
      if (!busy) sync();
    },
    async finish() {
      await inFlight;
      const descriptor = fd ? await fd : null;
      if (descriptor !== null) await new Promise<void>((resolve) => close(descriptor, () => resolve()));
    },
  };
}
