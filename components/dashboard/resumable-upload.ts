"use client";
/**
 * Large files from the dashboard go over tus (docs/resumable-uploads.md) with tus-js-client:
 * in chunks below common proxy body caps, with pause and resume, and resumed after a page
 * reload (tus-js-client keeps unfinished uploads in localStorage by the file's fingerprint:
 * name, type, size, last-modified time, endpoint). tus-js-client is loaded with the first large
 * file, not with the gallery: most visits upload nothing that large (issue 29).
 */
import type { DetailedError } from "tus-js-client";
import { errorText, type Privacy } from "./api";

/** Files larger than this go over tus; smaller ones as one POST /upload. */
export const TUS_THRESHOLD_BYTES = 50 * 1024 * 1024;
/** One PATCH at most: under the 100 MB body cap of common CDNs and proxies. */
export const TUS_CHUNK_BYTES = 50 * 1024 * 1024;

export interface ResumableControl {
  pause(): void;
  resume(): void;
}

export type ResumableResult = { ok: true; url?: string } | { ok: false; message: string };

/** Reads the share URL of the post the upload became (`Upload-Post` names it). */
async function shareUrlOf(code: string): Promise<string | undefined> {
  const reply = await fetch(`/api/posts/${encodeURIComponent(code)}`, { credentials: "same-origin" });
  if (!reply.ok) return undefined;
  return ((await reply.json()) as { post?: { url?: string } }).post?.url;
}

function failureMessage(error: Error | DetailedError): string {
  const response = "originalResponse" in error ? error.originalResponse : null;
  if (!response) return "The connection failed; press Resume to go on where it stopped.";
  let body: unknown = null;
  try {
    body = JSON.parse(response.getBody());
  } catch {
    // Not our JSON (a proxy's page): the status says enough.
  }
  return errorText(body, response.getStatus()).message;
}

/**
 * Starts (or, when this browser already sent part of the same file, resumes) a tus upload.
 * `control` is called once with the pause/resume handle.
 */
export async function sendResumable(
  file: File,
  privacy: Privacy,
  onProgress: (loaded: number, total: number) => void,
  control: (handle: ResumableControl) => void,
): Promise<ResumableResult> {
  let Upload: typeof import("tus-js-client").Upload;
  try {
    ({ Upload } = await import("tus-js-client"));
  } catch {
    return { ok: false, message: "The uploader could not be loaded; check the connection and try again." };
  }
  return new Promise((resolve) => {
    let post: string | null = null;
    const upload = new Upload(file, {
      endpoint: "/api/tus",
      chunkSize: TUS_CHUNK_BYTES,
      retryDelays: [0, 1000, 3000, 5000, 10000],
      metadata: { filename: file.name, "post-privacy": privacy },
      removeFingerprintOnSuccess: true,
      onProgress: (loaded, total) => onProgress(loaded, total),
      onAfterResponse: (_req, res) => {
        post = res.getHeader("Upload-Post") ?? post;
      },
      onSuccess: () => {
        if (!post) return resolve({ ok: true });
        void shareUrlOf(post).then(
          (url) => resolve({ ok: true, url }),
          () => resolve({ ok: true }),
        );
      },
      onError: (error) => resolve({ ok: false, message: failureMessage(error) }),
    });
    control({
      pause: () => void upload.abort(),
      resume: () => upload.start(),
    });
    // After a reload the same file picks up where the last page left it.
    void upload.findPreviousUploads().then((previous) => {
      if (previous.length > 0) upload.resumeFromPreviousUpload(previous[0]);
      upload.start();
    });
  });
}
