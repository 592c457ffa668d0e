/**
 * A list the summary reports in full without holding it: past MEMORY_ITEMS it moves to a JSON-lines
 * file (docs/migrate.md, "Memory"), named like a request's temp directory so a killed import's is
 * swept with those (docs/crash-recovery.md).
 */
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { createReadStream } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { TEMP_DIR_PREFIX, tempRoot } from "@/lib/files/temp";
import { ownerTag } from "@/lib/files/owner-tag";

export const MEMORY_ITEMS = 256;

export class SpillList<T> implements AsyncIterable<T> {
  private readonly held: T[] = [];
  private file: { dir: string; path: string; fd: number } | null = null;
  private count = 0;

  constructor(private readonly memoryItems = MEMORY_ITEMS) {}

  get length(): number {
    return this.count;
  }

  get spilled(): boolean {
    return this.file !== null;
  }

  push(item: T): void {
    this.count++;
    if (!this.file && this.held.length < this.memoryItems) {
      this.held.push(item);
      return;
    }
    const file = this.file ?? this.spill();
    writeSync(file.fd, `${JSON.stringify(item)}\n`);
  }

  private spill(): NonNullable<SpillList<T>["file"]> {
    mkdirSync(tempRoot(), { recursive: true });
    const dir = mkdtempSync(join(tempRoot(), `${TEMP_DIR_PREFIX}${ownerTag()}-`));
    const path = join(dir, "list.jsonl");
    const fd = openSync(path, "a");
    const file = { dir, path, fd };
    this.file = file;
    process.once("exit", () => this.dispose());
    for (const item of this.held.splice(0)) writeSync(fd, `${JSON.stringify(item)}\n`);
    return file;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    if (!this.file) {
      yield* this.held;
      return;
    }
    const lines = createInterface({ input: createReadStream(this.file.path, { encoding: "utf8" }), crlfDelay: Number.POSITIVE_INFINITY });
    for await (const line of lines) if (line) yield JSON.parse(line) as T;
  }

  toJSON(): T[] {
    if (!this.file) return [...this.held];
    return readFileSync(this.file.path, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as T);
  }

  dispose(): void {
    const file = this.file;
    if (!file) return;
    this.file = null;
    try {
      closeSync(file.fd);
    } catch {
      // already closed
    }
    rmSync(file.dir, { recursive: true, force: true });
  }
}
