/** The `convert-target` header (docs/convert.md): the spec's seven values only, so `jpg` is 400 here as anywhere. */
import { DomainError } from "@/lib/errors";
import { CONVERT_TARGETS, isConvertTarget, type ConvertTarget } from "@/lib/media";

export const CONVERT_TARGET_HEADER = "convert-target";

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
