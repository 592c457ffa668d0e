"use client";
/**
 * The guest upload form (docs/guest-uploads.md). Rendered as a plain multipart form that
 * posts to the hidden form endpoint and comes back with its result (works without
 * JavaScript); once the page runs, it sends the same files to the JSON endpoint with
 * XMLHttpRequest instead, to show the upload's progress and the result in place.
 */
import { useId, useState } from "react";
import { formatBytes } from "@/components/share/format";
import { primaryButtonClass } from "@/components/share/styles";
import { type GuestResult, guestResultWords } from "./guest-words";

type Sending = { percent: number } | null;

/** The reply of POST /api/guest-uploads/{code} (or its error) as a result. */
function resultOf(status: number, text: string): GuestResult {
  try {
    const body = JSON.parse(text) as { received?: unknown[]; failed?: { error?: { type?: string } }[]; error?: { type?: string } };
    if (status === 200) {
      return { sent: body.received?.length ?? 0, failed: body.failed?.length ?? 0, error: body.failed?.[0]?.error?.type ?? null };
    }
    return { sent: 0, failed: 0, error: body.error?.type ?? "internal" };
  } catch {
    return { sent: 0, failed: 0, error: "internal" };
  }
}

function send(code: string, data: FormData, onProgress: (percent: number) => void): Promise<GuestResult> {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `/api/guest-uploads/${encodeURIComponent(code)}`);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(Math.round((e.loaded / e.total) * 100));
    };
    xhr.onload = () => resolve(resultOf(xhr.status, xhr.responseText));
    xhr.onerror = () => resolve({ sent: 0, failed: 0, error: "unavailable" });
    xhr.send(data);
  });
}

export function GuestUploadForm({ code, maxFileBytes, initial }: { code: string; maxFileBytes: number; initial: GuestResult | null }) {
  const [sending, setSending] = useState<Sending>(null);
  const [result, setResult] = useState<GuestResult | null>(initial);
  const words = guestResultWords(result);

  const onSubmit = (event: React.FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    setResult(null);
    setSending({ percent: 0 });
    void send(code, new FormData(form), (percent) => setSending({ percent })).then((done) => {
      setSending(null);
      setResult(done);
      if (done.sent > 0) form.reset();
    });
  };

  return (
    <form
      action={`/api/guest-uploads/${code}/form`}
      method="post"
      encType="multipart/form-data"
      onSubmit={onSubmit}
      className="space-y-4"
      aria-busy={sending !== null}
    >
      <FileField maxFileBytes={maxFileBytes} />
      <button type="submit" className={`${primaryButtonClass} w-full sm:w-auto`} disabled={sending !== null}>
        {sending ? "Uploading…" : "Upload"}
      </button>
      {sending && (
        <progress className="block w-full" max={100} value={sending.percent} aria-label="Upload progress">
          {sending.percent}%
        </progress>
      )}
      <p
        role="status"
        aria-live="polite"
        className={words?.ok ? "text-sm text-green-700 dark:text-green-400" : "text-sm text-red-600 dark:text-red-400"}
      >
        {words?.text ?? ""}
      </p>
    </form>
  );
}

function FileField({ maxFileBytes }: { maxFileBytes: number }) {
  const inputId = useId();
  const hintId = useId();
  return (
    <div className="space-y-1">
      <label htmlFor={inputId} className="block text-sm font-medium">
        Files to upload
      </label>
      <input
        id={inputId}
        name="file"
        type="file"
        multiple
        required
        aria-describedby={hintId}
        className="block w-full rounded-md border border-zinc-300 bg-white p-2 text-sm dark:border-zinc-700 dark:bg-zinc-900"
      />
      <p id={hintId} className="text-sm text-zinc-500 dark:text-zinc-400">
        Up to {formatBytes(maxFileBytes)} per file. Only the folder's owner sees what you upload.
      </p>
    </div>
  );
}
