/**
 * Freezes a value and everything it holds, so an object shared through a cache cannot be
 * changed by one request under another (a change throws in strict-mode code, which ES
 * modules are). Dates are frozen too: their setters still work on frozen Dates, so code
 * must treat them as read-only by convention; the rest is enforced.
 */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return value;
  for (const inner of Object.values(value as Record<string, unknown>)) deepFreeze(inner);
  return Object.freeze(value);
}
