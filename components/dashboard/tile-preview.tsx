"use client";
/**
 * The square at the top of a gallery tile, for every kind (issue 38 §3): images and video
 * stills (a wide screenshot shown whole, not centre-cropped), a play badge and the duration on
 * videos, a paste's first lines, and an icon with the extension and size for other files.
 */
import { useEffect, useState } from "react";
import { GALLERY_SIZES, previewSources } from "@/components/preview-image";
import type { FileObject } from "./api";
import { placeholderLabel } from "./tile-label";
import { formatBytes } from "./ui";

/** Wider than this (width / height) and a crop to a square would lose most of it: shown whole. */
const WIDE = 1.8;
/** A paste's first lines come from the start of its file: one small ranged read. */
const TEXT_PREVIEW_BYTES = 600;
const TEXT_PREVIEW_LINES = 8;

/** 75.4 → "1:15", 3725 → "1:02:05". */
export function formatDuration(seconds: number): string {
  const total = Math.max(0, Math.round(seconds));
  const [h, m, s] = [Math.floor(total / 3600), Math.floor((total % 3600) / 60), total % 60];
  const mm = h ? String(m).padStart(2, "0") : String(m);
  return `${h ? `${h}:` : ""}${mm}:${String(s).padStart(2, "0")}`;
}

function TextLines({ file }: { file: FileObject }) {
  const [lines, setLines] = useState<string | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    fetch(file.url, { headers: { range: `bytes=0-${TEXT_PREVIEW_BYTES - 1}` }, signal: controller.signal, credentials: "same-origin" })
      .then((response) => (response.ok ? response.text() : ""))
      .then((text) => setLines(text.split("\n").slice(0, TEXT_PREVIEW_LINES).join("\n")))
      .catch(() => {});
    return () => controller.abort();
  }, [file.url]);
  return (
    <div className="flex h-full flex-col p-2 pt-11 text-left" data-tile-kind="text">
      <pre className="min-h-0 flex-1 overflow-hidden whitespace-pre-wrap break-all font-mono text-[11px] leading-snug text-zinc-700 dark:text-zinc-300">
        {lines ?? ""}
      </pre>
      <span className="mt-1 self-start rounded bg-zinc-200 px-1.5 py-0.5 text-[11px] font-medium dark:bg-zinc-700">
        {placeholderLabel(file)}
      </span>
    </div>
  );
}

function FileIcon({ file }: { file: FileObject }) {
  const dot = file.name.lastIndexOf(".");
  const extension =
    dot > 0
      ? file.name
          .slice(dot + 1)
          .toUpperCase()
          .slice(0, 6)
      : "FILE";
  return (
    <div className="flex h-full flex-col items-center justify-center gap-2 text-zinc-600 dark:text-zinc-300" data-tile-kind="file">
      <svg aria-hidden="true" viewBox="0 0 24 24" className="h-12 w-12" fill="none" stroke="currentColor" strokeWidth="1.5">
        <path d="M6 2h8l4 4v16H6z" />
        <path d="M14 2v4h4" />
      </svg>
      <span className="rounded bg-zinc-200 px-1.5 py-0.5 text-xs font-semibold dark:bg-zinc-700">{extension}</span>
      <span className="text-xs">{formatBytes(file.size)}</span>
    </div>
  );
}

export function TilePreview({
  file,
  alt,
  eager,
  priority,
}: {
  file: FileObject | undefined;
  alt: string;
  eager: boolean;
  priority: boolean;
}) {
  if (file?.kind === "text") return <TextLines file={file} />;
  if (file?.kind === "file" && !file.thumbnail_url) return <FileIcon file={file} />;
  const preview = previewSources(file);
  if (!file || !preview) {
    return <div className="flex h-full items-center justify-center text-sm text-zinc-600 dark:text-zinc-400">{placeholderLabel(file)}</div>;
  }
  const wide = file.width && file.height ? file.width / file.height > WIDE : false;
  return (
    <div className="relative h-full w-full" data-tile-kind={file.kind}>
      <img
        src={preview.src}
        srcSet={preview.srcSet}
        sizes={preview.srcSet ? GALLERY_SIZES : undefined}
        alt={alt}
        data-alt={alt ? "automatic" : undefined}
        data-fit={wide ? "contain" : "cover"}
        loading={eager ? "eager" : "lazy"}
        fetchPriority={priority ? "high" : undefined}
        className={`h-full w-full ${wide ? "object-contain" : "object-cover"}`}
      />
      {file.kind === "video" && (
        <span className="absolute bottom-2 right-2 flex items-center gap-1 rounded bg-black/70 px-1.5 py-0.5 text-xs font-medium text-white">
          <svg aria-hidden="true" viewBox="0 0 16 16" className="h-3 w-3" fill="currentColor">
            <path d="M4 2.5v11l9-5.5z" />
          </svg>
          <span className="sr-only">Video, </span>
          {typeof file.duration === "number" ? formatDuration(file.duration) : "video"}
        </span>
      )}
    </div>
  );
}
