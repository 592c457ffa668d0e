/** Looking up a stored file for direct delivery (/cdn/<code>/<name>). */
import { db } from "../db/client";
import { cachedDeliverable, peekDeliverable, type CachedDeliverable } from "./delivery-cache";
import { isHidden } from "./read";

export interface DeliverableFile {
  storageKey: string;
  thumbnailKey: string | null;
  mimeType: string;
  name: string;
  /** Private, draft or team post: the URL must carry a valid signature. */
  signed: boolean;
  moderated: boolean;
}

export function findDeliverableFile(code: string, name: string): Promise<DeliverableFile | null> {
  return cachedDeliverable(code, name, () => loadDeliverableFile(code, name));
}

/** The file when the delivery cache holds it (no await); undefined: use findDeliverableFile. */
export function peekDeliverableFile(code: string, name: string): DeliverableFile | undefined {
  return peekDeliverable<DeliverableFile>(code, name);
}

async function loadDeliverableFile(code: string, name: string): Promise<CachedDeliverable<DeliverableFile> | null> {
  const file = await db().file.findFirst({
    where: { name, post: { code } },
    select: {
      storageKey: true,
      thumbnailKey: true,
      mimeType: true,
      name: true,
      post: { select: { id: true, privacy: true, draft: true, teamId: true, moderated: true } },
    },
  });
  if (!file) return null;
  const value: DeliverableFile = {
    storageKey: file.storageKey,
    thumbnailKey: file.thumbnailKey,
    mimeType: file.mimeType,
    name: file.name,
    signed: isHidden(file.post),
    moderated: file.post.moderated,
  };
  return { postId: file.post.id, value };
}

export interface DeliverableStream {
  /** Storage prefix of the renditions (`.../<fileId>.hls/`). */
  prefix: string;
  signed: boolean;
  moderated: boolean;
}

/** The HLS renditions of a file for /cdn/<code>/hls/<name>/...: only once they are ready. */
export async function findDeliverableStream(code: string, name: string): Promise<DeliverableStream | null> {
  const file = await db().file.findFirst({
    where: { name, post: { code }, priority: true, streamState: "ready" },
    select: { streamKey: true, post: { select: { privacy: true, draft: true, teamId: true, moderated: true } } },
  });
  if (!file?.streamKey) return null;
  return { prefix: file.streamKey, signed: isHidden(file.post), moderated: file.post.moderated };
}

/** Whether a stored file still has its row (a rendition made while it was deleted is dropped). */
export async function fileStillStored(storageKey: string): Promise<boolean> {
  return (await db().file.count({ where: { storageKey } })) > 0;
}
