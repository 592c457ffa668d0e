/**
 * The delivery rules of /cdn (docs/architecture.md, "A /cdn request's path"), decided once for
 * both lanes; pure, the clock comes in as `now`. An expired post is 404 whatever a signature says.
 */
import { verifySignature } from "@/lib/crypto/signing";
import type { ErrorType } from "@/lib/errors";
import { cacheableUntil, deliverableExpired } from "@/lib/posts/files";
import { renditionKey, renditionSourceKey, type RenditionWidth } from "@/lib/renditions";
import type { CdnTarget } from "./cdn-path";
import { NO_SUCH_FILE } from "./cdn-path";

export interface DeliveryFacts {
  signed: boolean;
  moderated: boolean;
  /** Epoch ms past which the post has expired. */
  expiresAt: number | null;
}

export interface DeliveryFile extends DeliveryFacts {
  storageKey: string;
  thumbnailKey: string | null;
  mimeType: string;
}

export type RefusalReason = "missing" | "expired" | "bad_signature" | "moderated";

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
      key: string;
      contentType: string;
      /** Epoch seconds until which a reply may be cached; undefined: public and immutable. */
      cacheUntil: number | undefined;
      /** Made from `sourceKey` when not stored yet; `fileKey` tells whether the file still exists once done. */
      make?: { sourceKey: string; width: RenditionWidth; fileKey: string };
    }
  | { kind: "refuse"; reason: RefusalReason };

type PostFileTarget = Extract<CdnTarget, { kind: "original" | "thumb" | "rendition" }>;

const refuse = (reason: RefusalReason): Delivery => ({ kind: "refuse", reason });

/** The signature and moderation rules alone, for targets that look their object up themselves (HLS). */
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

/** `query` is the raw query string, without `?`. */
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
