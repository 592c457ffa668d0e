/**
 * Comments, docs pages and the README cite the repository's own documents
 * (docs/code-style.md): every `docs/<page>.md` they name exists, and a section it names in quotes (`docs/caching.md, "The change
 * number"`) is a heading of that page or a bold label in it (`**Retries**`). A renamed page or heading fails here instead of
 * leaving readers a citation that leads nowhere.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(__dirname, "..", "..");
const FOLDERS = ["app", "components", "lib", "scripts", "bench"];
const SKIP = /(^|\/)(generated|node_modules)(\/|$)/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (SKIP.test(relative(ROOT, path))) return [];
    if (entry.isDirectory()) return sources(path);
    return /\.(ts|tsx|mjs)$/.test(entry.name) ? [path] : [];
  });
}

/** The text with comment line breaks joined, so a citation wrapped over two lines reads as one. */
const joined = (text: string): string => text.replace(/\r?\n\s*(?:\*(?!\/)|\/\/)?\s*/g, " ");

const headings = new Map<string, string[] | null>();
function headingsOf(page: string): string[] | null {
  if (!headings.has(page)) {
    try {
      const text = readFileSync(join(ROOT, "docs", page), "utf8");
      headings.set(
        page,
        text
          .split("\n")
          .flatMap((line) =>
            /^#{1,6} /.test(line) ? [line] : [...line.matchAll(/\*\*([^*]+)\*\*/g)].map((m) => m[1].replace(/[.:]$/, "")),
          )
          .map((line) => line.replace(/^#+ /, "").replace(/`/g, "")),
      );
    } catch {
      headings.set(page, null);
    }
  }
  return headings.get(page) ?? null;
}

/** The docs pages and the README, whose lines are joined the same way (a citation may wrap). */
function documents(): string[] {
  const pages = readdirSync(join(ROOT, "docs")).filter((name) => name.endsWith(".md"));
  return [join(ROOT, "README.md"), ...pages.map((name) => join(ROOT, "docs", name))];
}
const joinedLines = (text: string): string => text.replace(/\r?\n\s*/g, " ");

describe("documents cited by comments and by the documents", () => {
  const texts = [
    ...FOLDERS.flatMap((folder) => sources(join(ROOT, folder))).map((file) => ({ file, text: joined(readFileSync(file, "utf8")) })),
    ...documents().map((file) => ({ file, text: joinedLines(readFileSync(file, "utf8")) })),
  ];
  const citations = texts.flatMap(({ file, text }) =>
    [...text.matchAll(/docs\/([\w.-]+\.md)(?:,\s*"([^"]+)")?/g)].map((m) => ({
      where: relative(ROOT, file),
      page: m[1],
      section: m[2],
    })),
  );

  it("finds citations to check", () => {
    expect(citations.length).toBeGreaterThan(50);
  });

  it("name pages that exist, and sections that are headings of them", () => {
    const broken: string[] = [];
    for (const { where, page, section } of citations) {
      const found = headingsOf(page);
      if (!found) {
        broken.push(`${where}: docs/${page} does not exist`);
        continue;
      }
      if (!section) continue;
      // A long heading may be cited by its start ("Key activity that invalidates nothing, ...").
      const start = section.replace(/[.…\s]+$/, "").replace(/`/g, "");
      if (!found.some((heading) => heading.startsWith(start))) broken.push(`${where}: docs/${page} has no heading "${section}"`);
    }
    expect(broken).toEqual([]);
  });
});
