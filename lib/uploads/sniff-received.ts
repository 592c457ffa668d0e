/**
 * An uploaded file's type, read from its bytes once per request: the priority-minutes
 * check and processing both need it (issue 21 §2, "each file is sniffed once"), so the
 * result travels with the file instead of each step reading the head again.
 */
import { sniffFile, type Sniffed } from "@/lib/media/sniff";
import type { ReceivedFile } from "./multipart";
import { asFileError } from "./file-error";

/** A received file and what its bytes are: null when it is no upload type, failed or empty. */
export interface SniffedFile extends ReceivedFile {
  sniffed: Sniffed | null;
}

/** Sniffs every readable file; a file that cannot be read fails alone, as in processing (lib/uploads/process.ts). */
export async function sniffReceived(files: readonly ReceivedFile[]): Promise<SniffedFile[]> {
  const sniffed: SniffedFile[] = [];
  for (const file of files) {
    if (file.error || !file.path) {
      sniffed.push({ ...file, sniffed: null });
      continue;
    }
    try {
      sniffed.push({ ...file, sniffed: await sniffFile(file.path) });
    } catch (error) {
      sniffed.push({ ...file, sniffed: null, error: asFileError(error) });
    }
  }
  return sniffed;
}
