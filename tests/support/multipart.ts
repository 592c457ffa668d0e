/** Multipart bodies for upload tests, from fixture files (small, so built in memory). */
import { readFile } from "node:fs/promises";
import { basename } from "node:path";

export interface Part {
  path: string;
  /** The client's file name (default: the fixture's). */
  name?: string;
  /** The part's Content-Type (default octet-stream, as curl sends for unknown types). */
  type?: string;
  field?: string;
}

export async function form(parts: Part[]): Promise<FormData> {
  const fd = new FormData();
  for (const p of parts) {
    const bytes = await readFile(p.path);
    fd.append(p.field ?? "file", new Blob([bytes], { type: p.type ?? "application/octet-stream" }), p.name ?? basename(p.path));
  }
  return fd;
}
