/** JSON text of frozen cached replies, serialized once (docs/performance.md, "The cached post reply kept, cheaper cache hits and key hashes"). */
import { checkResponse } from "./reply";
import type { RouteDef } from "./route";

const jsonOfFrozen = new WeakMap<object, string>();

/** The JSON text of a cached read's result: remembered for a frozen one, made each time otherwise. */
export function cachedJson(route: RouteDef, result: unknown): string {
  const frozen = typeof result === "object" && result !== null && Object.isFrozen(result) ? result : null;
  const known = frozen ? jsonOfFrozen.get(frozen) : undefined;
  if (known !== undefined) return known;
  checkResponse(route, result);
  const text = JSON.stringify(result);
  if (frozen) jsonOfFrozen.set(frozen, text);
  return text;
}
