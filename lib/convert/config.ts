/**
 * Settings of POST /convert. Conversions run inside the request, so they get their own time
 * limit, shorter than the media layer's MEDIA_TIMEOUT_SECONDS (300 s, sized for background
 * upload jobs): a client holding a connection open for five minutes is usually gone, and
 * proxies in front of the service commonly cut requests at 60–120 s.
 *
 * Read on every call (it is one environment lookup) so tests and operators can change it
 * without a restart of the module graph.
 */
export const DEFAULT_CONVERT_TIMEOUT_SECONDS = 120;

/**
 * CONVERT_TIMEOUT_SECONDS as milliseconds: a positive number of seconds, decimals allowed;
 * unset or empty means the default. A bad value is an operator error and fails loudly.
 */
export function convertTimeoutMs(env: Readonly<Record<string, string | undefined>> = process.env): number {
  const raw = (env.CONVERT_TIMEOUT_SECONDS ?? "").trim();
  if (!raw) return DEFAULT_CONVERT_TIMEOUT_SECONDS * 1000;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new Error(`Invalid CONVERT_TIMEOUT_SECONDS "${raw}": expected a positive number of seconds.`);
  }
  return Math.max(1, Math.round(seconds * 1000));
}

/**
 * Requests up to this many bytes (by Content-Length) converting to an image target are
 * received and converted in memory, with no temporary files: a screenshot conversion then
 * costs no file-system calls at all. Larger or chunked requests, and video sources, go
 * through temporary files as before. Memory held at once stays bounded: the receive gate
 * admits a few bodies at a time, and the media limiter a few jobs plus its queue.
 */
export const DEFAULT_CONVERT_IN_MEMORY_MAX_BYTES = 8 * 1024 * 1024;

/** CONVERT_IN_MEMORY_MAX_BYTES: a whole number of bytes, 0 turns the in-memory path off. */
export function convertInMemoryMaxBytes(env: Readonly<Record<string, string | undefined>> = process.env): number {
  const raw = (env.CONVERT_IN_MEMORY_MAX_BYTES ?? "").trim();
  if (!raw) return DEFAULT_CONVERT_IN_MEMORY_MAX_BYTES;
  const bytes = Number(raw);
  if (!Number.isSafeInteger(bytes) || bytes < 0) {
    throw new Error(`Invalid CONVERT_IN_MEMORY_MAX_BYTES "${raw}": expected a whole number of bytes (0 turns it off).`);
  }
  return bytes;
}
