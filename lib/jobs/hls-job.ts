/**
 * The "hls" job (docs/priority-delivery.md). Charged once: the flip to "ready" is a
 * conditional UPDATE and the charge happens in its transaction only when it changed the row.
 * A job that fails for good leaves standard delivery and removes its segments.
 */
import { createWriteStream } from "node:fs";
import { mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { z } from "zod";
import { db, type Tx } from "@/lib/db/client";
import { chargePriorityMinutes } from "@/lib/usage/priority";
import { isDomainError } from "@/lib/errors";
import { HLS_CONTENT_TYPES, minutesOf, transcodeHls } from "@/lib/media/hls";
import { ADAPTIVE_STREAM_STATES } from "@/lib/posts/adaptive";
import { storage } from "@/lib/storage";
import { withTempDir } from "@/lib/files/temp";
import { PermanentJobError, type JobHandler } from "./worker";

export const HLS_JOB = "hls";
const Payload = z.object({ fileId: z.string().min(1) });
export type HlsPayload = z.infer<typeof Payload>;

export const hlsPrefix = (postId: string, fileId: string): string => `p/${postId}/${fileId}.hls/`;
export const hlsJobKey = (fileId: string): string => `hls:${fileId}`;

export const hlsJobHandler: JobHandler = {
  async run(raw, { signal }) {
    const { fileId } = Payload.parse(raw);
    const file = await db().file.findUnique({
      where: { id: fileId },
      select: { id: true, postId: true, storageKey: true, streamState: true, priority: true },
    });
    // Deleted since, or already done by an earlier attempt: nothing to do.
    if (!file?.priority || file.streamState === "ready") return;
    const prefix = hlsPrefix(file.postId, file.id);
    // streamKey is set before any segment is written, so deleting the file meanwhile removes them too.
    await db().file.updateMany({
      where: { id: file.id, streamState: { in: ["queued", "processing", "failed"] } },
      data: { streamState: "processing", streamKey: prefix },
    });

    const result = await withTempDir(async (dir) => {
      const source = join(dir, "source.mp4");
      const object = await storage().open(file.storageKey);
      if (!object) throw new PermanentJobError("The stored video is missing.");
      await pipeline(object.body, createWriteStream(source), { signal });
      const out = join(dir, "hls");
      await mkdir(out);
      let hls;
      try {
        hls = await transcodeHls(source, out, { signal });
      } catch (error) {
        // A corrupt or over-long video fails the same way every time.
        if (isDomainError(error) && error.type === "invalid_request") throw new PermanentJobError(error.message);
        throw error;
      }
      for (const name of await readdir(out)) {
        const ext = name.slice(name.lastIndexOf(".") + 1);
        const type = HLS_CONTENT_TYPES[ext];
        if (type) await storage().putFile(prefix + name, join(out, name), type);
      }
      return hls;
    });

    const flipped = await db().$transaction(async (tx) => {
      const { count } = await tx.file.updateMany({
        where: { id: file.id, streamState: { in: ["queued", "processing"] } },
        data: { streamState: "ready", streamKey: prefix },
      });
      if (count !== 1) return false;
      const post = await tx.post.update({ where: { id: file.postId }, data: { priority: true }, select: { userId: true } });
      if (post.userId) await chargeMinutes(tx, post.userId, minutesOf(result.duration));
      return true;
    });
    // The file was deleted (or changed) while we worked: its segments must not linger.
    if (!flipped) {
      const still = await db().file.findUnique({ where: { id: file.id }, select: { streamState: true } });
      if (still?.streamState !== "ready") await storage().deletePrefix(prefix);
    }
  },

  async onFailed(raw) {
    const parsed = Payload.safeParse(raw);
    if (!parsed.success) return;
    const file = await db().file.findUnique({ where: { id: parsed.data.fileId }, select: { id: true, postId: true, streamState: true } });
    if (!file || file.streamState === "ready") return;
    await db().$transaction(async (tx) => {
      await tx.file.update({ where: { id: file.id }, data: { streamState: "failed", streamKey: null } });
      // Back on standard delivery, unless another file of the album is still on adaptive.
      const adaptive = await tx.file.count({
        where: { postId: file.postId, priority: true, streamState: { in: [...ADAPTIVE_STREAM_STATES] } },
      });
      await tx.post.update({ where: { id: file.postId }, data: { priority: adaptive > 0 } });
    });
    await storage().deletePrefix(hlsPrefix(file.postId, file.id));
  },
};

export async function chargeMinutes(tx: Tx, userId: string, minutes: number): Promise<void> {
  await chargePriorityMinutes(tx, userId, minutes);
}
