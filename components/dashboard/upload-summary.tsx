"use client";
/** One progress display over every upload in the list: files, bytes, failures, a rate-limit pause. */
import { useEffect, useState } from "react";
import { countOf } from "@/components/plural";
import { formatBytes, muted } from "./ui";
import type { UploadItem } from "./upload";

/** Bytes of a file counted as sent: all of it once the server has it. */
const sentBytes = (item: UploadItem) =>
  item.state === "done" || item.state === "processing" ? item.size : item.state === "uploading" ? item.loaded : 0;

function useSecondsUntil(until: number | null): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (until === null) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [until]);
  return until === null ? 0 : Math.max(1, Math.ceil((until - now) / 1000));
}

export function UploadSummary({ items, pausedUntil }: { items: UploadItem[]; pausedUntil: number | null }) {
  const seconds = useSecondsUntil(pausedUntil);
  const done = items.filter((i) => i.state === "done").length;
  const failed = items.filter((i) => i.state === "failed").length;
  const totalBytes = items.reduce((sum, i) => sum + i.size, 0);
  const sent = items.reduce((sum, i) => sum + sentBytes(i), 0);
  const finished = done + failed === items.length;
  return (
    <div className="space-y-1" data-testid="upload-summary">
      <p role="status" className={muted}>
        <span data-testid="upload-count">
          {done} of {countOf(items.length, "file")} uploaded
        </span>
        {failed > 0 && <span className="text-red-600 dark:text-red-400"> · {failed} failed</span>}
        {/* Uploads from a URL have no size until the server has fetched them: bytes only for files sent from here. */}
        {items.some((i) => !i.fromUrl) && (
          <>
            {" "}
            · {formatBytes(sent)} of {formatBytes(totalBytes)}
          </>
        )}
        {pausedUntil !== null && !finished && <span> · paused by the rate limit, resuming in {countOf(seconds, "second")}</span>}
      </p>
      <progress
        className="h-2 w-full overflow-hidden rounded [&::-webkit-progress-bar]:bg-zinc-200 [&::-webkit-progress-value]:bg-brand-600 dark:[&::-webkit-progress-bar]:bg-zinc-800"
        max={Math.max(1, totalBytes)}
        value={sent}
        aria-label="Progress of all uploads"
      />
    </div>
  );
}
