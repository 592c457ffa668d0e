/**
 * A text post's file on its share page (docs/pastes.md): highlighted on the server, line
 * numbers and wrapping in CSS (app/globals.css, `.text-view`), so it reads without script;
 * the wrap toggle is a checkbox, the raw link serves the file as plain text.
 */
import type { ShareText } from "@/lib/web/share-text";
import { CopyTextButton } from "./CopyTextButton";
import { formatBytes } from "./format";

const BUTTON =
  "rounded-md border border-zinc-300 px-2.5 py-1 text-sm font-medium hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800";

export function TextView({ text, url, size, id }: { text: ShareText; url: string; size: number; id: string }) {
  return (
    <div className="text-view">
      <input type="checkbox" id={`${id}-wrap`} className="text-view-wrap peer sr-only" />
      <div className="flex flex-wrap items-center justify-between gap-2 border-b border-zinc-200 px-3 py-2 text-sm dark:border-zinc-800">
        <span className="text-zinc-600 dark:text-zinc-400">
          <span className="font-medium text-zinc-900 dark:text-zinc-100">{text.name}</span> · {text.language} · {text.lineCount}{" "}
          {text.lineCount === 1 ? "line" : "lines"} · {formatBytes(size)}
        </span>
        <span className="flex items-center gap-2">
          <label htmlFor={`${id}-wrap`} className={`${BUTTON} cursor-pointer`}>
            Wrap
          </label>
          <a href={url} className={BUTTON}>
            Raw
          </a>
          <CopyTextButton targetId={`${id}-code`} className={BUTTON} />
        </span>
      </div>
      {/* Shiki's HTML: every character of the text is escaped by it (lib/text/highlight.ts). */}
      {/* biome-ignore lint/security/noDangerouslySetInnerHtml: escaped by Shiki or plainHtml */}
      <div id={`${id}-code`} className="text-view-code" dangerouslySetInnerHTML={{ __html: text.html }} />
    </div>
  );
}
