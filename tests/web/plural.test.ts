/**
 * Counts in the web UI say "1 view", "2 views" (components/plural.ts), and no component
 * spells a plural after a count itself: every counted noun goes through the helper.
 */
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { countOf, nounFor } from "@/components/plural";

describe("countOf / nounFor", () => {
  it("one is singular; zero, many, fractions and null are plural", () => {
    expect(countOf(1, "view")).toBe("1 view");
    expect(countOf(2, "view")).toBe("2 views");
    expect(countOf(0, "like")).toBe("0 likes");
    expect(countOf(null, "comment")).toBe("0 comments");
    expect(countOf(1, "file")).toBe("1 file");
    expect(countOf(9, "file")).toBe("9 files");
    expect(countOf(1, "day")).toBe("1 day");
    expect(countOf(30, "day")).toBe("30 days");
    expect(countOf(1, "upload")).toBe("1 upload");
    expect(countOf(1, "post")).toBe("1 post");
    expect(nounFor(1, "minute")).toBe("minute");
    expect(nounFor(1.5, "minute")).toBe("minutes");
  });

  it("compact counts: 1 like, 1.2K likes", () => {
    expect(countOf(1, "like", { compact: true })).toBe("1 like");
    expect(countOf(1234, "like", { compact: true })).toBe("1.2K likes");
    expect(countOf(1000, "view", { compact: true })).toBe("1K views");
  });
});

const ROOT = join(__dirname, "..", "..");
async function sources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(ROOT, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await sources(path)));
    else if (/\.tsx?$/.test(entry.name)) out.push(path);
  }
  return out;
}

describe("the web UI's components", () => {
  it("never write a counted noun after a number themselves (`{n} views`, `${n} files`, `file{n === 1 ? ...}`)", async () => {
    const nouns = "views?|likes?|comments?|files?|days?|uploads?|posts?|minutes?";
    // A count (an expression naming a count, length, total, streak or what is left) directly
    // followed by a noun, or a noun with a hand-made "s" suffix.
    const counted = new RegExp(`\\{[^{}]*(?:[cC]ount|length|total|streak|left)[^{}]*\\}\\s?(?:${nouns})\\b`);
    const suffixed = /\{[^{}]*=== 1 \? "" : "s"\}/;
    const offenders: string[] = [];
    for (const file of [...(await sources("components")), ...(await sources("app"))]) {
      const text = await readFile(join(ROOT, file), "utf8");
      text.split("\n").forEach((line, i) => {
        if ((counted.test(line) || suffixed.test(line)) && !line.trimStart().startsWith("//"))
          offenders.push(`${relative(ROOT, join(ROOT, file))}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(offenders).toEqual([]);
  });
});
