/**
 * Syntax highlighting of text posts with Shiki (docs/pastes.md): the JavaScript regex engine (no
 * WebAssembly heap), grammars loaded on first need. Past the size bounds the text is shown plain:
 * tokenising megabytes would hold the event loop and the heap (docs/performance.md).
 */
import type { HighlighterCore } from "shiki/core";
import { LANGUAGES } from "./languages";

export const HIGHLIGHT_MAX_CHARS = 256 * 1024;
export const HIGHLIGHT_MAX_LINES = 5000;

let highlighter: Promise<HighlighterCore> | undefined;

function getHighlighter(): Promise<HighlighterCore> {
  highlighter ??= (async () => {
    const [{ createHighlighterCore }, { createJavaScriptRegexEngine }] = await Promise.all([
      import("shiki/core"),
      import("shiki/engine/javascript"),
    ]);
    return createHighlighterCore({
      themes: [import("@shikijs/themes/github-light"), import("@shikijs/themes/github-dark-default")],
      langs: [],
      engine: createJavaScriptRegexEngine({ forgiving: true }),
    });
  })();
  highlighter.catch(() => {
    highlighter = undefined;
  });
  return highlighter;
}

async function ensureLanguage(core: HighlighterCore, language: string): Promise<boolean> {
  if (language === "text" || !LANGUAGES.includes(language)) return false;
  if (core.getLoadedLanguages().includes(language)) return true;
  const { bundledLanguages } = await import("shiki/langs");
  const load = bundledLanguages[language as keyof typeof bundledLanguages];
  if (!load) return false;
  await core.loadLanguage(load);
  return true;
}

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** The same markup as Shiki's, without colours: `<pre class="shiki"><code><span class="line">…`. */
export function plainHtml(text: string): string {
  const lines = text.replace(/\r\n?/g, "\n").replace(/\n$/, "").split("\n");
  return `<pre class="shiki plain"><code>${lines.map((l) => `<span class="line">${escapeHtml(l)}</span>`).join("\n")}</code></pre>`;
}

/** The text as highlighted HTML (escaped by Shiki), or plain when too large or the language is unknown. */
export async function highlightToHtml(text: string, language: string): Promise<{ html: string; highlighted: boolean }> {
  const lineCount = text.length ? text.split("\n").length : 0;
  if (text.length > HIGHLIGHT_MAX_CHARS || lineCount > HIGHLIGHT_MAX_LINES) return { html: plainHtml(text), highlighted: false };
  try {
    const core = await getHighlighter();
    if (!(await ensureLanguage(core, language))) return { html: plainHtml(text), highlighted: false };
    const html = core.codeToHtml(text.replace(/\r\n?/g, "\n").replace(/\n$/, ""), {
      lang: language,
      // github-dark-default: github-dark's comments are 3.0:1 on its background (axe, issue 29).
      themes: { light: "github-light", dark: "github-dark-default" },
      defaultColor: false,
    });
    return { html, highlighted: true };
  } catch (error) {
    // A grammar the JavaScript engine cannot compile: the text is still shown.
    console.error(`highlight: ${language} failed`, error);
    return { html: plainHtml(text), highlighted: false };
  }
}

/** The first lines of a text, for unfurl descriptions (Discord shows about 350 characters). */
export function firstLines(text: string, maxLines = 6, maxChars = 300): string {
  const lines = text
    .replace(/^\uFEFF/, "")
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .slice(0, maxLines)
    .join("\n")
    .trimEnd();
  return lines.length > maxChars ? `${lines.slice(0, maxChars - 1)}…` : lines;
}
