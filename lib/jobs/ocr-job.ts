/**
 * The "ocr" job reads one stored image's text, "ocr-backfill" walks older images with its
 * cursor in its own row (docs/ocr.md). An image that cannot be read gets an empty text row,
 * so neither a retry nor the backfill tries it again.
 */
import { buffer as readAll } from "node:stream/consumers";
import { z } from "zod";
import { db, type Tx } from "@/lib/db/client";
import { readImageText } from "@/lib/media/ocr";
import { ocrActive, ocrConfig, TesseractError } from "@/lib/media/tesseract";
import { filesWithoutText, readsText, saveFileText } from "@/lib/posts/file-text";
import { storage } from "@/lib/storage";
import { enqueueJob } from "./queue";
import { type JobContext, type JobHandler, PermanentJobError } from "./worker";

export const OCR_JOB = "ocr";
export const OCR_BACKFILL_JOB = "ocr-backfill";
export const ocrJobKey = (fileId: string): string => `ocr:${fileId}`;
/** Then it hands over to a fresh job, so new uploads go first in between. */
export const BACKFILL_BATCH = 20;

const Payload = z.object({ fileId: z.string().min(1) });
const BackfillPayload = z.object({ after: z.string().nullable() });

/** False when the file is gone or not an image. */
export async function readFileText(fileId: string, signal?: AbortSignal): Promise<boolean> {
  const file = await db().file.findUnique({ where: { id: fileId }, select: { storageKey: true, mimeType: true, size: true } });
  if (!file || !readsText(file.mimeType)) return false;
  const config = ocrConfig();
  const unread = { text: "", language: config.language, confidence: 0 };
  if (file.size > BigInt(config.maxBytes)) return saveFileText(fileId, unread);
  const object = await storage().open(file.storageKey);
  if (!object) throw new PermanentJobError("The stored image is missing.");
  const bytes = await readAll(object.body);
  try {
    return await saveFileText(fileId, await readImageText(bytes, { language: config.language, timeoutMs: config.timeoutMs, signal }));
  } catch (error) {
    if (signal?.aborted) throw error;
    // The same image fails the same way every time: remember it as read, with no text.
    if (!(error instanceof TesseractError) || error.reason === "timeout" || error.reason === "exit") {
      await saveFileText(fileId, unread);
      throw new PermanentJobError(`The image's text could not be read: ${error instanceof Error ? error.message : String(error)}`);
    }
    throw error;
  }
}

export const ocrJobHandler: JobHandler = {
  async run(raw, { signal }) {
    // Turned off (or Tesseract removed) since it was queued: the backfill reads it once back on.
    if (!ocrActive()) return;
    const { fileId } = Payload.parse(raw);
    const done = await db().fileText.findUnique({ where: { fileId }, select: { fileId: true } });
    if (!done) await readFileText(fileId, signal);
  },
};

export const ocrBackfillHandler: JobHandler = {
  async run(raw, ctx: JobContext) {
    if (!ocrActive()) return;
    let { after } = BackfillPayload.parse(raw);
    const batch = await filesWithoutText(after, BACKFILL_BATCH);
    for (const file of batch) {
      if (ctx.signal.aborted) throw new Error("aborted");
      try {
        await readFileText(file.id, ctx.signal);
      } catch (error) {
        // One bad image must not stop the walk (it was recorded as unread above).
        if (!(error instanceof PermanentJobError)) throw error;
      }
      after = file.id;
      // The cursor is the row's payload: a requeued job (crash, stop) starts after this file.
      await db().job.update({ where: { id: ctx.job.id }, data: { payload: JSON.stringify({ after }) } });
    }
    if (batch.length === BACKFILL_BATCH) await enqueueJob(OCR_BACKFILL_JOB, { after });
  },
};

/** Unless one is queued or running; two instances may both start one, which costs time, not correctness. */
export async function startOcrBackfill(): Promise<string | null> {
  if (!ocrActive()) return null;
  const live = await db().job.count({ where: { kind: OCR_BACKFILL_JOB, state: { in: ["queued", "running"] } } });
  if (live) return null;
  if (!(await filesWithoutText(null, 1)).length) return null;
  return (await enqueueJob(OCR_BACKFILL_JOB, { after: null })).id;
}

/** In the caller's transaction; none while reading is off. */
export async function enqueueOcrJobs(tx: Tx, files: readonly { id: string; mimeType: string }[]): Promise<string[]> {
  if (!ocrActive()) return [];
  const ids: string[] = [];
  for (const file of files) {
    if (readsText(file.mimeType)) ids.push((await enqueueJob(OCR_JOB, { fileId: file.id }, { key: ocrJobKey(file.id), tx })).id);
  }
  return ids;
}
