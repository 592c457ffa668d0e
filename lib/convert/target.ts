/**
 * The `convert-target` header (interface.md, POST /convert rule 1): required, one of the
 * spec's seven values, trimmed and case-insensitive like the other headers. `jpg` is
 * accepted as an alias of `jpeg`: it is the extension people type (and the one our JPEG
 * output carries), and refusing it would only produce support questions.
 */
import { DomainError } from "../errors";
import { CONVERT_TARGETS, isConvertTarget, type ConvertTarget } from "../media";

export const CONVERT_TARGET_HEADER = "convert-target";

// A Map, not an object literal: a header such as "constructor" must not find a prototype member.
const ALIASES: ReadonlyMap<string, ConvertTarget> = new Map([["jpg", "jpeg"]]);

/** The target named by the header, or 400 invalid_request when it is missing or unknown. */
export function parseConvertTarget(value: string | null): ConvertTarget {
  const text = (value ?? "").trim().toLowerCase();
  if (!text) {
    throw new DomainError("invalid_request", `The ${CONVERT_TARGET_HEADER} header is required (one of ${CONVERT_TARGETS.join(", ")}).`);
  }
  const target = ALIASES.get(text) ?? text;
  if (!isConvertTarget(target)) {
    throw new DomainError("invalid_request", `Invalid ${CONVERT_TARGET_HEADER} header; use one of ${CONVERT_TARGETS.join(", ")}.`);
  }
  return target;
}
