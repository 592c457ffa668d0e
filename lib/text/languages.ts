/** The highlighting language of a text file (docs/pastes.md): its extension, else its content, else "text". */

/** Extensions → Shiki language ids (a few common ones; anything else is read from the content). */
const BY_EXTENSION: Readonly<Record<string, string>> = {
  txt: "text",
  log: "log",
  md: "markdown",
  markdown: "markdown",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  jsx: "jsx",
  ts: "typescript",
  mts: "typescript",
  cts: "typescript",
  tsx: "tsx",
  json: "json",
  jsonc: "jsonc",
  json5: "json5",
  py: "python",
  rb: "ruby",
  rs: "rust",
  go: "go",
  java: "java",
  kt: "kotlin",
  kts: "kotlin",
  c: "c",
  h: "c",
  cc: "cpp",
  cpp: "cpp",
  cxx: "cpp",
  hpp: "cpp",
  cs: "csharp",
  swift: "swift",
  php: "php",
  sh: "shellscript",
  bash: "shellscript",
  zsh: "shellscript",
  fish: "fish",
  ps1: "powershell",
  bat: "bat",
  cmd: "bat",
  html: "html",
  htm: "html",
  xml: "xml",
  svg: "xml",
  css: "css",
  scss: "scss",
  less: "less",
  yml: "yaml",
  yaml: "yaml",
  toml: "toml",
  ini: "ini",
  cfg: "ini",
  conf: "ini",
  env: "dotenv",
  sql: "sql",
  lua: "lua",
  pl: "perl",
  r: "r",
  dart: "dart",
  scala: "scala",
  hs: "haskell",
  ex: "elixir",
  exs: "elixir",
  erl: "erlang",
  zig: "zig",
  nim: "nim",
  vue: "vue",
  svelte: "svelte",
  diff: "diff",
  patch: "diff",
  dockerfile: "docker",
  tf: "terraform",
  graphql: "graphql",
  gql: "graphql",
  proto: "proto",
  csv: "csv",
  tsv: "tsv",
  tex: "latex",
  vim: "viml",
  nginx: "nginx",
  prisma: "prisma",
};

/** The extension a paste of `language` is named with (so the upload's language rule finds it again). */
export function extensionFor(language: string): string {
  if (language === "text") return "txt";
  return Object.entries(BY_EXTENSION).find(([, id]) => id === language)?.[0] ?? "txt";
}

/** Every language id this module can answer, "text" included (the share page and the paste form list them). */
export const LANGUAGES: readonly string[] = [...new Set(["text", ...Object.values(BY_EXTENSION)])].sort();

const SHEBANGS: ReadonlyArray<[RegExp, string]> = [
  [/\b(ba|z|k)?sh\b/, "shellscript"],
  [/\bpython[0-9.]*\b/, "python"],
  [/\b(node|deno|bun)\b/, "javascript"],
  [/\bruby\b/, "ruby"],
  [/\bperl\b/, "perl"],
  [/\bphp\b/, "php"],
];

export function languageFor(ext: string, text: string): string {
  const byName = BY_EXTENSION[ext.toLowerCase()];
  if (byName && byName !== "text") return byName;
  return languageFromContent(text);
}

function languageFromContent(text: string): string {
  const start = text.replace(/^\uFEFF/, "").trimStart();
  const firstLine = start.slice(0, start.indexOf("\n") >>> 0).slice(0, 200);
  if (firstLine.startsWith("#!")) return SHEBANGS.find(([re]) => re.test(firstLine))?.[1] ?? "shellscript";
  if (start.startsWith("<?php")) return "php";
  if (/^<!doctype html|^<html[\s>]/i.test(start)) return "html";
  if (start.startsWith("<?xml")) return "xml";
  if ((start.startsWith("{") || start.startsWith("[")) && start.length <= 512 * 1024 && isJson(start)) return "json";
  if (/^diff --git |^--- \S.*\n\+\+\+ \S/.test(start)) return "diff";
  return "text";
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** A language id from a client (the paste form, an upload header): one of LANGUAGES, else null. */
export function knownLanguage(value: string | null | undefined): string | null {
  const v = (value ?? "").trim().toLowerCase();
  return LANGUAGES.includes(v) ? v : null;
}
