/** The error a file of an upload fails with, whichever step failed it (sniffing, processing, storing). */
import { DomainError, isDomainError } from "@/lib/errors";
import { asUnavailable } from "@/lib/faults/classify";

/** A per-file error for `failed[]`: known domain errors as they are, anything else internal. */
export function asFileError(error: unknown): DomainError {
  // A full volume met while receiving (docs/faults.md): the outage's error, logged once per outage.
  const classified = asUnavailable(error);
  if (isDomainError(classified)) return classified;
  console.error("upload: file failed", error);
  return new DomainError("internal", "The file could not be processed.");
}
