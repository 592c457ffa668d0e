/** Deep-freezes a value shared through a cache, so one request cannot change it under another (Dates stay settable: treat them as read-only). */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return value;
  for (const inner of Object.values(value as Record<string, unknown>)) deepFreeze(inner);
  return Object.freeze(value);
}
