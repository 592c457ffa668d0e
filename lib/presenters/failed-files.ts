/** The `failed` list of an upload reply (docs/uploads.md, "How files map to posts"): one entry per refused file. */
import { type DomainError, errorBodyOf } from "../errors";

export type FailedFileView = { index: number; error: ReturnType<typeof errorBodyOf>["error"] };

export const failedFilesView = (failed: readonly { index: number; error: DomainError }[]): FailedFileView[] =>
  failed.map((f) => ({ index: f.index, error: errorBodyOf(f.error).error }));
