import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Every test run gets its own DATA_DIR so local files never touch ./data. */
export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), "mediahost-test-data-"));
  process.env.DATA_DIR = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
