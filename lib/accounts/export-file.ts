/** `admin user export --out FILE`: the same zip as "Download my data", written to a file as it is made. */
import { createWriteStream } from "node:fs";
import { rm, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { pipeline } from "node:stream/promises";
import { DomainError } from "@/lib/errors";
import { exportAccount } from "./export";

export async function writeAccountExport(userId: string, out: string): Promise<{ out: string; bytes: number }> {
  const path = resolve(out);
  const { stream } = await exportAccount(userId);
  try {
    // wx: never overwrites an existing file (a typo must not destroy something).
    await pipeline(stream, createWriteStream(path, { flags: "wx" }));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") throw new DomainError("invalid_request", `${path} exists already.`);
    await rm(path, { force: true });
    if (code === "ENOENT" || code === "EACCES" || code === "EISDIR")
      throw new DomainError("invalid_request", `Cannot write ${path} (${code}).`);
    throw error;
  }
  return { out: path, bytes: (await stat(path)).size };
}
