/** The error a file of an upload fails with, whichever step failed it (sniffing, processing, storing). */
import { DomainError, isDomainError } from "../errors";

/** A per-file error for `failed[]`: known domain errors as they are, anything else internal. */
export function asFileError(error: unknown): DomainError {
  if (isDomainError(error)) return error;
  console.error("upload: file failed", error);
  return new DomainError("internal", "The file could not be processed.");
}
