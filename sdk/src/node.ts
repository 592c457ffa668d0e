/**
 * Node-only helpers (they need `node:fs`); everything of sdk/src/index.ts is re-exported.
 */
import { openAsBlob } from "node:fs";
import { stat } from "node:fs/promises";
import { basename } from "node:path";
import type { FileSource } from "./upload.js";

export * from "./index.js";

/**
 * A file on disk as an upload source, read in chunks while the request is sent, never
 * whole into memory: `openAsBlob` gives a Blob backed by the file, and the SDK's upload
 * requests are sent so that Node's fetch does not tee the body (docs/sdk.md, "Uploads
 * stream"). The file must not change until the upload is done (Node then fails the read
 * rather than send a mix).
 */
export async function fromPath(path: string, name: string = basename(path)): Promise<FileSource> {
  // openAsBlob does not check the path; a missing file would surface as a failed upload.
  if (!(await stat(path)).isFile()) throw new Error(`${path} is not a file`);
  return { blob: await openAsBlob(path), name };
}
