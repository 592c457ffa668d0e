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
