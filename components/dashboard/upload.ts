"use client";
/**
 * Uploads from the browser with XMLHttpRequest: fetch has no upload progress events, and
 * a progress bar per file is the point. One request per file, so every file gets its own
 * post, its own bar and its own error in words; the queue (upload-queue.ts) runs a few at
 * once, paced, and waits out 429s (docs/bulk-actions.md). Files over TUS_THRESHOLD_BYTES go
 * over tus instead and can be paused and resumed (docs/resumable-uploads.md).
 */
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { errorText, type Privacy } from "./api";
import { sendResumable, TUS_THRESHOLD_BYTES, type ResumableControl } from "./resumable-upload";
import { UploadQueue, type QueueTask, type SendResult, type TaskChange } from "./upload-queue";

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
  /** Fetched by the server from the URL in `name` (docs/url-uploads.md): no size or progress known. */
  fromUrl?: boolean;
}

const PARALLEL = 3;
/** Below the abuse safeguard's 8 uploads in one second (docs/rate-limits.md, "Other counters"), with room for jitter. */
const STARTS_PER_SECOND = 5;
const MAX_ATTEMPTS = 20;

interface FailedEntry {
  index?: number;
  error?: { type?: string; message?: string };
}

/** The message of a response, including the per-file `failed` entries of a partial failure. */
function failureText(body: unknown, status: number): string {
  const failed = body as { failed?: FailedEntry[]; error?: { failed?: FailedEntry[] } } | null;
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
): Promise<SendResult> {
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
        const retryAfter = Number(xhr.getResponseHeader("retry-after"));
        resolve({
          ok: false,
          message: failureText(body, xhr.status),
          status: xhr.status,
          retryAfterSeconds: retryAfter > 0 ? retryAfter : null,
        });
      }
    };
    xhr.onerror = () =>
      resolve({ ok: false, message: "The connection failed before the upload finished.", status: 0, retryAfterSeconds: null });
    xhr.onabort = () => resolve({ ok: false, message: "The upload was cancelled.", status: 0, retryAfterSeconds: null });
    const form = new FormData();
    for (const file of files) form.append("file", file, file.name);
    xhr.send(form);
  });
}

/**
 * An upload from a URL (docs/url-uploads.md): the server fetches the file, so there is no
 * progress to show, only the wait and its answer. Not paced by the queue: one person types
 * one URL at a time.
 */
export async function sendUrl(url: string, privacy: Privacy): Promise<SendResult> {
  const form = new FormData();
  form.append("url", url);
  try {
    const response = await fetch("/api/upload", {
      method: "POST",
      body: form,
      credentials: "same-origin",
      headers: { "post-privacy": privacy },
    });
    const body: unknown = await response.json().catch(() => null);
    if (response.ok) return { ok: true, body };
    return { ok: false, message: failureText(body, response.status), status: response.status, retryAfterSeconds: null };
  } catch {
    return { ok: false, message: "The connection failed before the server answered.", status: 0, retryAfterSeconds: null };
  }
}

/** A large file over tus, as one queue task: tus-js-client retries on its own, so a failure is final. */
async function sendOverTus(
  task: QueueTask,
  privacy: Privacy,
  onProgress: (loaded: number, total: number) => void,
  controls: Map<number, ResumableControl>,
): Promise<SendResult> {
  const result = await sendResumable(task.file, privacy, onProgress, (control) => controls.set(task.id, control));
  controls.delete(task.id);
  return result.ok
    ? { ok: true, body: { post: { url: result.url } } }
    : { ok: false, message: result.message, status: 0, retryAfterSeconds: null };
}

/** The item's fields after a change the queue reports. */
function applied(item: UploadItem, change: TaskChange): Partial<UploadItem> {
  switch (change.state) {
    case "uploading":
      return { state: "uploading", loaded: 0, error: undefined };
    case "progress":
      // A paused tus upload may still report the chunk in flight: it stays paused.
      if (item.state === "paused") return { loaded: change.loaded };
      return { loaded: change.loaded, state: change.total > 0 && change.loaded >= change.total ? "processing" : "uploading" };
    case "retrying":
      // Waiting again; the summary says why and for how long.
      return { state: "queued", loaded: 0 };
    case "done":
      return { state: "done", loaded: item.size, url: (change.body as { post?: { url?: string } } | null)?.post?.url };
    case "failed":
      return { state: "failed", error: change.message };
  }
}

export function useUploads(onUploaded: () => void) {
  const [items, setItems] = useState<UploadItem[]>([]);
  /** While the queue waits out a 429: until when (ms since the epoch). */
  const [pausedUntil, setPausedUntil] = useState<number | null>(null);
  const nextId = useRef(1);
  const privacyOf = useRef(new Map<number, Privacy>());
  const controls = useRef(new Map<number, ResumableControl>());
  const uploaded = useRef(onUploaded);
  useEffect(() => {
    uploaded.current = onUploaded;
  }, [onUploaded]);

  const queue = useMemo(
    () =>
      new UploadQueue({
        parallel: PARALLEL,
        startsPerSecond: STARTS_PER_SECOND,
        maxAttempts: MAX_ATTEMPTS,
        send: (task, onProgress) => {
          const privacy = privacyOf.current.get(task.id) ?? "private";
          if (task.file.size <= TUS_THRESHOLD_BYTES) return sendFiles("/api/upload", [task.file], { "post-privacy": privacy }, onProgress);
          setItems((list) => list.map((item) => (item.id === task.id ? { ...item, resumable: true } : item)));
          return sendOverTus(task, privacy, onProgress, controls.current);
        },
        onChange: (id, change) => setItems((list) => list.map((item) => (item.id === id ? { ...item, ...applied(item, change) } : item))),
        onPause: setPausedUntil,
        onIdle: () => uploaded.current(),
      }),
    [],
  );

  const upload = useCallback(
    (files: File[], privacy: Privacy) => {
      const tasks = files.map((file) => ({ id: nextId.current++, file }));
      for (const t of tasks) privacyOf.current.set(t.id, privacy);
      setItems((list) => [
        ...tasks.map((t) => ({
          id: t.id,
          name: t.file.name || "pasted image",
          size: t.file.size,
          loaded: 0,
          state: "queued" as UploadState,
        })),
        ...list,
      ]);
      queue.add(tasks);
    },
    [queue],
  );

  /** Fetches `url` on the server into a new post, shown as one row of the list. */
  const uploadUrl = useCallback(async (url: string, privacy: Privacy) => {
    const id = nextId.current++;
    setItems((list) => [{ id, name: url, size: 0, loaded: 0, state: "processing", fromUrl: true }, ...list]);
    const result = await sendUrl(url, privacy);
    const change: TaskChange = result.ok ? { state: "done", body: result.body } : { state: "failed", message: result.message };
    setItems((list) => list.map((item) => (item.id === id ? { ...item, ...applied(item, change) } : item)));
    if (result.ok) uploaded.current();
  }, []);

  const clearFinished = useCallback(() => setItems((list) => list.filter((i) => i.state !== "done" && i.state !== "failed")), []);

  /** Pause and resume of an upload sent over tus. */
  const pause = useCallback((id: number) => {
    controls.current.get(id)?.pause();
    setItems((list) => list.map((item) => (item.id === id ? { ...item, state: "paused" } : item)));
  }, []);
  const resume = useCallback((id: number) => {
    setItems((list) => list.map((item) => (item.id === id ? { ...item, state: "uploading" } : item)));
    controls.current.get(id)?.resume();
  }, []);

  return { items, pausedUntil, upload, uploadUrl, clearFinished, pause, resume };
}
