/** Folder checks and walks shared by backup create and restore. */
import { readdir } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { DomainError } from "@/lib/errors";

/** True when `dir` does not exist or holds nothing. */
export async function isEmptyOrMissing(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).length === 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return true;
    throw error;
  }
}

export async function requireEmpty(dir: string, what: string): Promise<void> {
  if (!(await isEmptyOrMissing(dir))) {
    throw new DomainError("invalid_request", `${what} ${dir} is not empty; give an empty or new folder.`);
  }
}

/** Every regular file under `root`, as `/`-separated paths relative to it, sorted. */
export async function listFiles(root: string): Promise<string[]> {
  let found: import("node:fs").Dirent[];
  try {
    found = await readdir(root, { recursive: true, withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  return found
    .filter((d) => d.isFile())
    .map((d) => relative(root, join(d.parentPath, d.name)).split(sep).join("/"))
    .sort();
}
