/** The `failed` list of an upload reply (docs/uploads.md, "How files map to posts"): one entry per refused file. */
import { type DomainError, errorBodyOf } from "@/lib/errors";

export type FailedFileView = { index: number; error: ReturnType<typeof errorBodyOf>["error"] };

/**
 * The interface lists the per-file types (file_too_large, unsupported_type, quota_exceeded,
 * invalid_request, internal): a file refused because a dependency is away (a full volume,
 * docs/faults.md) is `internal` there, with the outage's message.
 */
export const failedFilesView = (failed: readonly { index: number; error: DomainError }[]): FailedFileView[] =>
  failed.map((f) => {
    const error = errorBodyOf(f.error).error;
    return { index: f.index, error: error.type === "unavailable" ? { ...error, type: "internal" } : error };
  });
