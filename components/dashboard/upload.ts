"use client";
/**
 * Uploads from the browser with XMLHttpRequest: fetch has no upload progress events, and
 * a progress bar per file is the point. One request per file, so every file gets its own
 * post, its own bar and its own error in words; a few run at once.
 */
import { useCallback, useRef, useState } from "react";
import { errorText, type Privacy } from "./api";
import { sendResumable, TUS_THRESHOLD_BYTES, type ResumableControl } from "./resumable-upload";

export type UploadState = "queued" | "uploading" | "paused" | "processing" | "done" | "failed";

export interface UploadItem {
  id: number;
  name: string;
  size: number;
  loaded: number;
  state: UploadState;
  error?: string;
  /** Share page of the new post. */
  url?: string;
  /** Sent over tus (docs/resumable-uploads.md): can be paused and resumed. */
  resumable?: boolean;
}

const PARALLEL = 3;

interface FailedEntry {
  index?: number;
  error?: { type?: string; message?: string };
}

/** The message of a response, including the per-file `failed` entries of a partial failure. */
function failureText(body: unknown, status: number): string {
  const failed = (body as { failed?: FailedEntry[]; error?: { failed?: FailedEntry[] } } | null);
  const entries = failed?.failed ?? failed?.error?.failed;
  const first = entries?.find((e) => e.error?.message);
  if (first?.error?.message) return first.error.message;
  return errorText(body, status).message;
}

/** POSTs `files` to `endpoint` (field `file`), reporting upload progress. */
export function sendFiles(
  endpoint: string,
  files: File[],
  headers: Record<string, string>,
  onProgress: (loaded: number, total: number) => void,
): Promise<{ ok: true; body: unknown } | { ok: false; message: string }> {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", endpoint);
    xhr.withCredentials = true;
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => onProgress(event.loaded, event.lengthComputable ? event.total : 0);
    xhr.onload = () => {
      let body: unknown = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // A proxy's HTML error page: reported by status below.
      }
      const partial = (body as { failed?: unknown[]; posts?: unknown[] } | null)?.failed;
      if (xhr.status >= 200 && xhr.status < 300 && !(partial && partial.length > 0 && files.length === 1)) {
        resolve({ ok: true, body });
      } else {
        resolve({ ok: false, message: failureText(body, xhr.status) });
      }
    };
    xhr.onerror = () => resolve({ ok: false, message: "The connection failed before the upload finished." });
    xhr.onabort = () => resolve({ ok: false, message: "The upload was cancelled." });
    const form = new FormData();
    for (const file of files) form.append("file", file, file.name);
    xhr.send(form);
  });
}

export function useUploads(onUploaded: () => void) {
  const [items, setItems] = useState<UploadItem[]>([]);
  const nextId = useRef(1);
  const controls = useRef(new Map<number, ResumableControl>());

  const patch = useCallback((id: number, change: Partial<UploadItem>) => {
    setItems((list) => list.map((item) => (item.id === id ? { ...item, ...change } : item)));
  }, []);

  const upload = useCallback(
    async (files: File[], privacy: Privacy) => {
      const queued = files.map((file) => ({ file, item: { id: nextId.current++, name: file.name || "pasted image", size: file.size, loaded: 0, state: "queued" as UploadState } }));
      setItems((list) => [...queued.map((q) => q.item), ...list]);
      let cursor = 0;
      const worker = async (): Promise<void> => {
        while (cursor < queued.length) {
          const { file, item } = queued[cursor++];
          patch(item.id, { state: "uploading" });
          const progress = (loaded: number, total: number) =>
            setItems((list) =>
              list.map((i) =>
                i.id !== item.id || i.state === "paused" ? i : { ...i, loaded, state: total > 0 && loaded >= total ? "processing" : "uploading" },
              ),
            );
          if (file.size > TUS_THRESHOLD_BYTES) {
            patch(item.id, { resumable: true });
            const result = await sendResumable(file, privacy, progress, (control) => controls.current.set(item.id, control));
            controls.current.delete(item.id);
            if (result.ok) patch(item.id, { state: "done", loaded: item.size, url: result.url });
            else patch(item.id, { state: "failed", error: result.message });
            continue;
          }
          const result = await sendFiles("/api/upload", [file], { "post-privacy": privacy }, progress);
          if (result.ok) {
            const url = (result.body as { post?: { url?: string } } | null)?.post?.url;
            patch(item.id, { state: "done", loaded: item.size, url });
          } else {
            patch(item.id, { state: "failed", error: result.message });
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(PARALLEL, queued.length) }, worker));
      onUploaded();
    },
    [onUploaded, patch],
  );

  const clearFinished = useCallback(() => setItems((list) => list.filter((i) => i.state !== "done" && i.state !== "failed")), []);

  /** Pause and resume of an upload sent over tus. */
  const pause = useCallback(
    (id: number) => {
      controls.current.get(id)?.pause();
      patch(id, { state: "paused" });
    },
    [patch],
  );
  const resume = useCallback(
    (id: number) => {
      patch(id, { state: "uploading" });
      controls.current.get(id)?.resume();
    },
    [patch],
  );

  return { items, upload, clearFinished, pause, resume };
}
