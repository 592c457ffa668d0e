"use client";
/** Drop zone, paste target and file picker, with one progress display over the batch and a bar per file. */
import { useEffect, useRef, useState, type DragEvent, type FormEvent } from "react";
import type { Privacy } from "./api";
import { privaciesFrom } from "./privacies";
import { PrivacySelect } from "./privacy-select";
import { formatBytes, input, muted, secondaryButton } from "./ui";
import type { UploadItem } from "./upload";
import { UploadSummary } from "./upload-summary";

const STATE_TEXT: Record<UploadItem["state"], string> = {
  queued: "Waiting",
  uploading: "Uploading",
  paused: "Paused",
  processing: "Processing",
  done: "Uploaded",
  failed: "Failed",
};

export function UploadPanel({
  initialPrivacy = "unlisted",
  items,
  pausedUntil,
  onFiles,
  onUrl,
  onClear,
  onPause,
  onResume,
}: {
  /** The account's default for web uploads (lib/users/upload-privacy.ts). */
  initialPrivacy?: Privacy;
  items: UploadItem[];
  /** The upload queue waits out a 429 until then (docs/bulk-actions.md). */
  pausedUntil: number | null;
  onFiles: (files: File[], privacy: Privacy) => void;
  /** An upload from a URL, fetched by the server (docs/url-uploads.md); no form without it. */
  onUrl?: (url: string, privacy: Privacy) => void;
  onClear: () => void;
  /** Large files go over tus and can be paused and resumed (docs/resumable-uploads.md). */
  onPause?: (id: number) => void;
  onResume?: (id: number) => void;
}) {
  const [privacy, setPrivacy] = useState<Privacy>(initialPrivacy);
  usePasteToUpload(onFiles, privacy);
  const finished = items.some((i) => i.state === "done" || i.state === "failed");

  return (
    <section aria-labelledby="upload-heading" className="space-y-3">
      <h2 id="upload-heading" className="sr-only">
        Upload
      </h2>
      <DropZone privacy={privacy} onPrivacy={setPrivacy} onFiles={onFiles} />
      {onUrl && <UrlForm onUrl={(url) => onUrl(url, privacy)} />}

      {items.length > 0 && (
        <div className="space-y-2">
          <UploadSummary items={items} pausedUntil={pausedUntil} />
          <ul className="space-y-2" aria-label="Uploads">
            {items.map((item) => (
              <UploadRow key={item.id} item={item} onPause={onPause} onResume={onResume} />
            ))}
          </ul>
          {finished && (
            <button type="button" className="text-sm text-zinc-600 underline dark:text-zinc-400" onClick={onClear}>
              Clear finished uploads
            </button>
          )}
        </div>
      )}
    </section>
  );
}

/** Paste anywhere on the page (outside text fields) uploads the clipboard's files. */
function usePasteToUpload(onFiles: (files: File[], privacy: Privacy) => void, privacy: Privacy): void {
  useEffect(() => {
    const onPaste = (event: ClipboardEvent) => {
      const target = event.target as HTMLElement | null;
      if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.isContentEditable)) return;
      const files = Array.from(event.clipboardData?.files ?? []);
      if (files.length > 0) {
        event.preventDefault();
        onFiles(files, privacy);
      }
    };
    window.addEventListener("paste", onPaste);
    return () => window.removeEventListener("paste", onPaste);
  }, [onFiles, privacy]);
}

/** Where files come in: dropped, or chosen with the picker; with the privacy new uploads get. */
function DropZone({
  privacy,
  onPrivacy,
  onFiles,
}: {
  privacy: Privacy;
  onPrivacy: (privacy: Privacy) => void;
  onFiles: (files: File[], privacy: Privacy) => void;
}) {
  const [dragging, setDragging] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  // Fixed ids, not useId: the gallery hydrates as its own root (fieldIds in components/field.tsx).
  const privacyId = "upload-privacy-new";

  const onDrop = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault();
    setDragging(false);
    const files = Array.from(event.dataTransfer.files);
    if (files.length > 0) onFiles(files, privacy);
  };

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: a drop zone; the file input and paste inside it are the keyboard's way in
    <div
      onDragOver={(e) => {
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
      data-testid="dropzone"
      className={`flex flex-col items-center justify-center gap-3 rounded-lg border-2 border-dashed px-4 py-6 text-center transition-colors sm:flex-row sm:justify-between sm:text-left ${
        dragging ? "border-brand-500 bg-brand-50 dark:bg-brand-500/10" : "border-zinc-300 dark:border-zinc-700"
      }`}
    >
      <p className={muted}>
        <span className="font-medium text-zinc-900 dark:text-zinc-100">Drop files here</span>, paste with Ctrl+V, or choose them.
      </p>
      <div className="flex flex-wrap items-center justify-center gap-2">
        <PrivacySelect
          id={privacyId}
          label="Privacy of new uploads"
          value={privacy}
          choices={privaciesFrom("unlisted")}
          onChange={onPrivacy}
        />
        <button type="button" className={secondaryButton} onClick={() => inputRef.current?.click()}>
          Choose files
        </button>
        <input
          ref={inputRef}
          type="file"
          multiple
          accept="image/*,video/*"
          aria-label="Files to upload"
          className="sr-only"
          tabIndex={-1}
          onChange={(e) => {
            const files = Array.from(e.target.files ?? []);
            e.target.value = "";
            if (files.length > 0) onFiles(files, privacy);
          }}
        />
      </div>
    </div>
  );
}

/** "From a URL": the server fetches the file (http or https), the row below shows the answer. */
function UrlForm({ onUrl }: { onUrl: (url: string) => void }) {
  const [url, setUrl] = useState("");
  const id = "upload-url";
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const value = url.trim();
    if (!value) return;
    onUrl(value);
    setUrl("");
  };
  return (
    <form onSubmit={submit} className="flex flex-col gap-2 sm:flex-row sm:items-center">
      <label htmlFor={id} className="shrink-0 text-sm font-medium text-zinc-700 dark:text-zinc-300">
        Upload from a URL
      </label>
      <input
        id={id}
        type="url"
        inputMode="url"
        required
        placeholder="https://example.com/picture.png"
        className={`${input} min-w-0 flex-1`}
        value={url}
        onChange={(e) => setUrl(e.target.value)}
      />
      <button type="submit" className={secondaryButton}>
        Fetch
      </button>
    </form>
  );
}

/** One file of the batch: its state, size and bar; pause/resume for resumable ones; its error or its link. */
function UploadRow({ item, onPause, onResume }: { item: UploadItem; onPause?: (id: number) => void; onResume?: (id: number) => void }) {
  const percent = item.size > 0 ? Math.min(100, Math.round((item.loaded / item.size) * 100)) : item.state === "done" ? 100 : 0;
  return (
    <li className="rounded-md border border-zinc-200 p-3 text-sm dark:border-zinc-800" data-upload-state={item.state}>
      <div className="flex items-center justify-between gap-3">
        <span className="truncate font-medium">{item.name}</span>
        <span className="flex shrink-0 items-center gap-2 text-zinc-500 dark:text-zinc-400">
          {item.fromUrl
            ? item.state === "processing"
              ? "Fetching"
              : STATE_TEXT[item.state]
            : `${STATE_TEXT[item.state]} · ${formatBytes(item.size)}`}
          {item.resumable && item.state === "uploading" && onPause && (
            <button type="button" className="underline" onClick={() => onPause(item.id)} aria-label={`Pause upload of ${item.name}`}>
              Pause
            </button>
          )}
          {item.resumable && item.state === "paused" && onResume && (
            <button type="button" className="underline" onClick={() => onResume(item.id)} aria-label={`Resume upload of ${item.name}`}>
              Resume
            </button>
          )}
        </span>
      </div>
      <progress
        className="mt-2 h-2 w-full overflow-hidden rounded [&::-webkit-progress-bar]:bg-zinc-200 [&::-webkit-progress-value]:bg-brand-600 dark:[&::-webkit-progress-bar]:bg-zinc-800"
        max={100}
        value={item.state === "failed" ? 0 : percent}
        aria-label={`Upload progress of ${item.name}`}
      />
      {item.error && (
        <p role="alert" className="mt-1 text-red-600 dark:text-red-400">
          {item.error}
        </p>
      )}
      {item.url && (
        <a href={item.url} className="mt-1 inline-block text-brand-600 underline dark:text-brand-400">
          Open share page
        </a>
      )}
    </li>
  );
}
