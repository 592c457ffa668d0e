/**
 * Settings of POST /convert, read on every call. Conversions run inside the request, so their
 * time limit is shorter than MEDIA_TIMEOUT_SECONDS: proxies commonly cut requests at 60–120 s.
 */
export const DEFAULT_CONVERT_TIMEOUT_SECONDS = 120;

/** CONVERT_TIMEOUT_SECONDS in ms; a bad value is an operator error and fails loudly. */
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
 * Image conversions up to this many bytes run in memory. Memory stays bounded: the receive
 * gate admits a few bodies at a time, the media limiter a few jobs.
 */
export const DEFAULT_CONVERT_IN_MEMORY_MAX_BYTES = 8 * 1024 * 1024;

export function convertInMemoryMaxBytes(env: Readonly<Record<string, string | undefined>> = process.env): number {
  const raw = (env.CONVERT_IN_MEMORY_MAX_BYTES ?? "").trim();
  if (!raw) return DEFAULT_CONVERT_IN_MEMORY_MAX_BYTES;
  const bytes = Number(raw);
  if (!Number.isSafeInteger(bytes) || bytes < 0) {
    throw new Error(`Invalid CONVERT_IN_MEMORY_MAX_BYTES "${raw}": expected a whole number of bytes (0 turns it off).`);
  }
  return bytes;
}
