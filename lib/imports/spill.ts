/**
 * A list an import's summary reports in full (every skipped item, every clash) without holding
 * it: the first MEMORY_ITEMS stay in memory; past them the whole list goes to a JSON-lines
 * file under DATA_DIR/tmp and grows there. An import whose every one of 100 000 files is
 * skipped (a wrong `--uploads`) holds as little as one that skips none (docs/migrate.md,
 * "Memory"). The admin CLI writes it out item by item (lib/cli/json-out.ts); `toJSON` reads it
 * whole, for callers that want an array (tests, a small list).
 *
 * The file is named like a request's temporary directory (req-<owner tag>-...), so what a
 * killed import leaves is swept with those (docs/crash-recovery.md); a finished process
 * removes its own on exit.
 */
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { createReadStream } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { TEMP_DIR_PREFIX, tempRoot } from "@/lib/files/temp";
import { ownerTag } from "@/lib/files/owner-tag";

/** Items kept in memory before the list moves to its file. */
export const MEMORY_ITEMS = 256;

export class SpillList<T> implements AsyncIterable<T> {
  private readonly held: T[] = [];
  private file: { dir: string; path: string; fd: number } | null = null;
  private count = 0;

  constructor(private readonly memoryItems = MEMORY_ITEMS) {}

  get length(): number {
    return this.count;
  }

  /** Whether the list has moved to its file (for tests). */
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

  /** Moves what is held to a new file; later items are appended to it. */
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

  /** Removes the file, if the list has one (also on process exit). */
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
