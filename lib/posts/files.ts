/** Looking up a stored file for direct delivery (/cdn/<code>/<name>). */
import { db } from "@/lib/db/client";
import { env } from "@/lib/config/env";
import { isDependencyUnavailable } from "@/lib/faults/classify";
import { isDown } from "@/lib/faults/outages";
import { cachedDeliverable, lastDecided, noteDecided, peekDeliverable, type CachedDeliverable } from "./delivery-cache";
import { isExpired, isGated } from "./expiry-rules";
import { isHidden } from "./read";

export interface DeliverableFile {
  storageKey: string;
  thumbnailKey: string | null;
  mimeType: string;
  name: string;
  /** media, text or file (docs/file-kinds.md): the /cdn headers follow it. */
  kind: string;
  /** The URL must carry a valid signature (private, draft, team or gated post). */
  signed: boolean;
  moderated: boolean;
  /** Epoch ms past which the post has expired (docs/expiry.md); checked on every hit, cached or not. */
  expiresAt: number | null;
}

export const deliverableExpired = (file: { expiresAt: number | null }, now: number = Date.now()): boolean =>
  file.expiresAt !== null && file.expiresAt <= now;

/** The file as the database has it; while it is away, a recent public decision (docs/faults.md, "The stale window"). */
export async function findDeliverableFile(code: string, name: string): Promise<DeliverableFile | null> {
  // Known away: no wait for a connection that will not come (a frozen database costs a timeout each).
  if (isDown("database")) {
    const stale = staleDeliverableFile(code, name);
    if (stale) return stale;
  }
  try {
    return await cachedDeliverable(code, name, () => loadDeliverableFile(code, name));
  } catch (error) {
    const stale = isDependencyUnavailable(error) ? staleDeliverableFile(code, name) : undefined;
    if (stale) return stale;
    throw error;
  }
}

function staleDeliverableFile(code: string, name: string): DeliverableFile | undefined {
  const seconds = env().DELIVERY_STALE_SECONDS ?? 60;
  if (seconds <= 0) return undefined;
  const file = lastDecided<DeliverableFile>(code, name, seconds * 1000);
  return file && !deliverableExpired(file) ? file : undefined;
}

export function peekDeliverableFile(code: string, name: string): DeliverableFile | undefined {
  return peekDeliverable<DeliverableFile>(code, name);
}

/** Until when (epoch seconds) a reply may be cached; undefined for a public, never-expiring file. */
export function cacheableUntil(file: { expiresAt: number | null }, signatureExpiry: number | undefined): number | undefined {
  const postExpiry = file.expiresAt === null ? undefined : Math.floor(file.expiresAt / 1000);
  if (signatureExpiry === undefined) return postExpiry;
  return postExpiry === undefined ? signatureExpiry : Math.min(signatureExpiry, postExpiry);
}

const deliverySelect = {
  id: true,
  privacy: true,
  draft: true,
  teamId: true,
  moderated: true,
  expiresAt: true,
  maxViews: true,
  passwordHash: true,
} as const;

type DeliveryPost = { privacy: string; draft: boolean; teamId: string | null; maxViews: number | null; passwordHash: string | null };
const needsSignature = (post: DeliveryPost): boolean => isHidden(post) || isGated(post);

async function loadDeliverableFile(code: string, name: string): Promise<CachedDeliverable<DeliverableFile> | null> {
  const file = await db().file.findFirst({
    where: { name, post: { code } },
    select: {
      storageKey: true,
      thumbnailKey: true,
      mimeType: true,
      name: true,
      kind: true,
      post: { select: deliverySelect },
    },
  });
  if (!file) {
    noteDecided(code, name, null, false);
    return null;
  }
  const value: DeliverableFile = {
    storageKey: file.storageKey,
    thumbnailKey: file.thumbnailKey,
    mimeType: file.mimeType,
    name: file.name,
    kind: file.kind,
    signed: needsSignature(file.post),
    moderated: file.post.moderated,
    expiresAt: file.post.expiresAt?.getTime() ?? null,
  };
  noteDecided(code, name, value, !value.signed && !value.moderated);
  return { postId: file.post.id, value };
}

export interface DeliverableStream {
  prefix: string;
  signed: boolean;
  moderated: boolean;
  expiresAt: number | null;
}

export async function findDeliverableStream(code: string, name: string): Promise<DeliverableStream | null> {
  const file = await db().file.findFirst({
    where: { name, post: { code }, priority: true, streamState: "ready" },
    select: { streamKey: true, post: { select: deliverySelect } },
  });
  if (!file?.streamKey || isExpired(file.post)) return null;
  return {
    prefix: file.streamKey,
    signed: needsSignature(file.post),
    moderated: file.post.moderated,
    expiresAt: file.post.expiresAt?.getTime() ?? null,
  };
}

/** Whether a stored file still has its row (a rendition made while it was deleted is dropped). */
export async function fileStillStored(storageKey: string): Promise<boolean> {
  return (await db().file.count({ where: { storageKey } })) > 0;
}
