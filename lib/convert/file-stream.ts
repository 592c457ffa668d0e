/**
 * A response body read from an open file handle. The converted file's directory is already
 * deleted when the body starts (see convert.ts): on POSIX systems an unlinked file stays
 * readable through an open descriptor and its blocks are freed when the last descriptor is
 * closed. So closing the handle is the whole cleanup, and it happens exactly once, on
 * whichever comes first: the last byte sent, the consumer cancelling (client gone), a read
 * error, or the request's abort signal (a client that left before the body was pulled).
 */
import type { FileHandle } from "node:fs/promises";

/** Bytes per read: large enough to keep syscalls cheap, small enough to stay out of the way. */
export const READ_CHUNK_BYTES = 256 * 1024;

/**
 * Streams exactly `size` bytes of `file` from offset 0, then closes it. `size` is what the
 * caller announced as Content-Length: a file that turns out shorter errors the stream (the
 * client sees a truncated response) instead of sending fewer bytes than announced.
 */
export function streamFileHandle(file: FileHandle, size: number, signal?: AbortSignal): ReadableStream<Uint8Array> {
  let position = 0;
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      signal?.removeEventListener("abort", onAbort);
      await file.close().catch(() => undefined); // already closed or never readable: nothing left to free
    })();
    return closed;
  };
  const onAbort = (): void => void close();
  if (signal?.aborted) void close();
  else signal?.addEventListener("abort", onAbort, { once: true });

  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const want = Math.min(READ_CHUNK_BYTES, size - position);
        if (want <= 0) {
          await close();
          controller.close();
          return;
        }
        let bytesRead: number;
        const buffer = Buffer.allocUnsafe(want);
        try {
          if (closed) throw new Error("The response was aborted.");
          ({ bytesRead } = await file.read(buffer, 0, want, position));
          if (bytesRead === 0) throw new Error(`The converted file ended after ${position} of ${size} bytes.`);
        } catch (error) {
          await close();
          controller.error(error);
          return;
        }
        position += bytesRead;
        controller.enqueue(buffer.subarray(0, bytesRead));
        if (position >= size) {
          await close();
          controller.close();
        }
      },
      async cancel() {
        await close();
      },
    },
    // Read only when the consumer asks: nothing is buffered ahead of a slow client.
    { highWaterMark: 0 },
  );
}
