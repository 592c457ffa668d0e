/**
 * The delivery rules of /cdn (docs/architecture.md, "A /cdn request's path"), decided once
 * for both lanes: given the parsed target (lib/delivery/cdn-path.ts), the request's query
 * and what the delivery cache knows of the file (lib/posts/files.ts), serve which stored
 * object, how long it may be cached, or refuse with which error. Pure: no I/O; the clock
 * comes in as `now`. The lanes differ only in how they look the file up and write the
 * answer (lib/routes/cdn.ts: Web Response, any storage; lib/server/cdn-lane.ts: Node's
 * response from the open-file cache).
 *
 * Rules, in order: a missing file, thumbnail or rendition source is 404; an expired post
 * is 404 whatever a signature says (and is deleted now: `expired`); a hidden or gated
 * post's URL needs a valid signature (403 forbidden); a moderated post's files are 403
 * moderated. Public files never expiring are cached for a year; others until the
 * signature or the post expires, whichever comes first.
 */
import { verifySignature } from "@/lib/crypto/signing";
import type { ErrorType } from "@/lib/errors";
import { cacheableUntil, deliverableExpired } from "@/lib/posts/files";
import { renditionKey, renditionSourceKey, type RenditionWidth } from "@/lib/renditions";
import type { CdnTarget } from "./cdn-path";
import { NO_SUCH_FILE } from "./cdn-path";

/** What the delivery rules read of a file and its post (a DeliverableFile, a DeliverableStream). */
export interface DeliveryFacts {
  /** The URL must carry a valid signature (hidden or gated post). */
  signed: boolean;
  moderated: boolean;
  /** Epoch ms past which the post has expired. */
  expiresAt: number | null;
}

/** DeliveryFacts plus what names a post's stored objects. */
export interface DeliveryFile extends DeliveryFacts {
  storageKey: string;
  thumbnailKey: string | null;
  mimeType: string;
}

export type RefusalReason = "missing" | "expired" | "bad_signature" | "moderated";

/** The error each refusal answers (its status is the error type's). */
export const REFUSALS: Readonly<Record<RefusalReason, { error: ErrorType; message: string }>> = {
  missing: { error: "not_found", message: NO_SUCH_FILE },
  // The lane also deletes the post now, rather than at the next sweep (docs/expiry.md).
  expired: { error: "not_found", message: NO_SUCH_FILE },
  bad_signature: { error: "forbidden", message: "This link is not valid or has expired; request the post again for a fresh one." },
  moderated: { error: "moderated", message: "This file is under moderation." },
};

export type Delivery =
  | {
      kind: "serve";
      /** The stored object to send. */
      key: string;
      /** The type as recorded at upload (lib/delivery/headers.ts decides inline or attachment). */
      contentType: string;
      /** Epoch seconds until which a reply may be cached; undefined: public and immutable. */
      cacheUntil: number | undefined;
      /**
       * A rendition is made from `sourceKey` first when it is not stored yet; `fileKey`
       * (the file's own object) tells whether the file still exists when it is done.
       */
      make?: { sourceKey: string; width: RenditionWidth; fileKey: string };
    }
  | { kind: "refuse"; reason: RefusalReason };

type PostFileTarget = Extract<CdnTarget, { kind: "original" | "thumb" | "rendition" }>;

const refuse = (reason: RefusalReason): Delivery => ({ kind: "refuse", reason });

/**
 * The signature and moderation rules alone, for targets that look their object up
 * themselves (HLS streams): the refusal, or null when the request may have it.
 */
export function accessRefusal(
  facts: DeliveryFacts,
  signedPath: string,
  query: URLSearchParams,
  now: number = Date.now(),
): RefusalReason | null {
  if (facts.signed && !verifySignature(signedPath, query.get("exp") ?? "", query.get("sig") ?? "", Math.floor(now / 1000))) {
    return "bad_signature";
  }
  if (facts.moderated) return "moderated";
  return null;
}

/** The delivery of a post's file (`file` null: not found). `query` is the raw query string, without `?`. */
export function decideDelivery(target: PostFileTarget, query: string, file: DeliveryFile | null, now: number = Date.now()): Delivery {
  if (!file) return refuse("missing");
  const object = storedObject(target, file);
  if (!object) return refuse("missing");
  if (deliverableExpired(file, now)) return refuse("expired");
  // Parsed only when a signature is needed: a public file's query is never read.
  const params = file.signed ? new URLSearchParams(query) : null;
  const refused = accessRefusal(file, target.signedPath, params ?? EMPTY, now);
  if (refused) return refuse(refused);
  const cacheUntil = cacheableUntil(file, params ? Number(params.get("exp") ?? "") : undefined);
  return { kind: "serve", ...object, cacheUntil };
}

const EMPTY = new URLSearchParams();

/** Which stored object a target names, or null when the file has none (no thumbnail, no rendition source). */
function storedObject(
  target: PostFileTarget,
  file: DeliveryFile,
): Pick<Extract<Delivery, { kind: "serve" }>, "key" | "contentType" | "make"> | null {
  switch (target.kind) {
    case "original":
      return { key: file.storageKey, contentType: file.mimeType };
    case "thumb":
      return file.thumbnailKey ? { key: file.thumbnailKey, contentType: "image/jpeg" } : null;
    case "rendition": {
      const sourceKey = renditionSourceKey(file);
      if (!sourceKey) return null;
      return {
        key: renditionKey(file.storageKey, target.width),
        contentType: "image/webp",
        make: { sourceKey, width: target.width, fileKey: file.storageKey },
      };
    }
  }
}
