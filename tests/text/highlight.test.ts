/** Server-side highlighting of text posts (lib/text, docs/pastes.md) with the real Shiki. */
import { describe, expect, it } from "vitest";
import { HIGHLIGHT_MAX_LINES, firstLines, highlightToHtml } from "@/lib/text/highlight";
import { LANGUAGES, knownLanguage, languageFor } from "@/lib/text/languages";

describe("highlightToHtml", () => {
  it("colours a known language with both themes' variables, one .line per line", async () => {
    const { html, highlighted } = await highlightToHtml("const a = 1;\nlet b = a;\n", "typescript");
    expect(highlighted).toBe(true);
    expect(html).toMatch(/^<pre class="shiki/);
    expect(html).toContain("--shiki-light:");
    expect(html).toContain("--shiki-dark:");
    expect(html.match(/class="line"/g)).toHaveLength(2);
  });

  it("escapes the text: markup in a paste is shown, never parsed", async () => {
    for (const language of ["html", "text"]) {
      const { html } = await highlightToHtml('<script>alert("x")</script><img src=x onerror=alert(1)>', language);
      expect(html).not.toContain("<script");
      expect(html).not.toContain("<img");
      expect(html).toMatch(/&lt;|&#x3C;/);
    }
  });

  it("plain text, an unknown language or a text past the bounds is shown plain with the same markup", async () => {
    expect((await highlightToHtml("hello", "text")).highlighted).toBe(false);
    expect((await highlightToHtml("hello", "no-such-language")).highlighted).toBe(false);
    const long = "x\n".repeat(HIGHLIGHT_MAX_LINES + 1);
    const big = await highlightToHtml(long, "typescript");
    expect(big.highlighted).toBe(false);
    expect(big.html.match(/class="line"/g)).toHaveLength(HIGHLIGHT_MAX_LINES + 1);
  });

  it("every language this service names is a Shiki grammar (loaded only when a page needs it)", async () => {
    const { bundledLanguages } = await import("shiki/langs");
    expect(LANGUAGES.filter((l) => l !== "text" && !(l in bundledLanguages))).toEqual([]);
  });
});

describe("languages", () => {
  it("extension first, then shebang, markup and JSON content, else text", () => {
    expect(languageFor("rs", "fn main() {}")).toBe("rust");
    expect(languageFor("txt", "#!/bin/bash\necho hi")).toBe("shellscript");
    expect(languageFor("txt", '{"a": [1, 2]}')).toBe("json");
    expect(languageFor("txt", "<!DOCTYPE html><p>x")).toBe("html");
    expect(languageFor("txt", "just words")).toBe("text");
    expect(knownLanguage(" Python ")).toBe("python");
    expect(knownLanguage("cobol-2099")).toBeNull();
  });

  it("firstLines: at most 6 lines and 300 characters, for unfurls", () => {
    expect(firstLines("1\n2\n3\n4\n5\n6\n7\n8")).toBe("1\n2\n3\n4\n5\n6");
    expect(firstLines("y".repeat(500))).toHaveLength(300);
  });
});
