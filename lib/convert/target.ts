/**
 * The `convert-target` header (docs/convert.md, "`convert-target` values"): required, one of
 * the spec's seven values, trimmed and case-insensitive like the other headers. Anything else
 * is 400, `jpg` included: the spec lists the values, and a client written against it
 * must see the same answer here as anywhere. The message names `jpeg` for those who typed
 * the extension.
 */
import { DomainError } from "@/lib/errors";
import { CONVERT_TARGETS, isConvertTarget, type ConvertTarget } from "@/lib/media";

export const CONVERT_TARGET_HEADER = "convert-target";

/** The target named by the header, or 400 invalid_request when it is missing or unknown. */
export function parseConvertTarget(value: string | null): ConvertTarget {
  const text = (value ?? "").trim().toLowerCase();
  if (!text) {
    throw new DomainError("invalid_request", `The ${CONVERT_TARGET_HEADER} header is required (one of ${CONVERT_TARGETS.join(", ")}).`);
  }
  if (!isConvertTarget(text)) {
    const hint = text === "jpg" ? ' (JPEG is "jpeg")' : "";
    throw new DomainError("invalid_request", `Invalid ${CONVERT_TARGET_HEADER} header${hint}; use one of ${CONVERT_TARGETS.join(", ")}.`);
  }
  return text;
}
