/**
 * Avatar and banner: upload (POST /users/@me/avatar|banner) and removal (DELETE).
 *
 * An upload is the first file of multipart field `file`. Its type is detected from the
 * bytes: PNG, JPEG, WebP and GIF are accepted, anything else is 400 unsupported_type.
 * The image is re-encoded with sharp, never stored as sent:
 * - cropped to fill a fixed size (centre "cover"): avatars 512x512 (sharp on 3x phone
 *   screens at the usual 96-170 pt), banners 1500x500 (3:1, the common banner shape);
 * - EXIF orientation applied to the pixels, then every metadata block dropped (EXIF, GPS,
 *   XMP, ICC after conversion to sRGB): an avatar is public, a phone photo is not;
 * - written as WebP. Animated GIF and WebP stay animated (animated WebP, same frame
 *   timing): users expect the animation they picked. A cap on output pixels over all
 *   frames bounds the encoding work; longer animations are refused with a clear message.
 *
 * Storage: `u/<userId>/<kind>-<random>.webp`, served publicly and immutably by /cdn, so
 * every upload gets a new key (a cached old avatar can never be served for the new one).
 * The user row is switched with a compare-and-set on the previous key, and whoever
 * replaced a key deletes that file: concurrent uploads never leak or delete a live file.
 */
import { DomainError } from "@/lib/errors";
import { db } from "@/lib/db/client";
import { newId } from "@/lib/db/ids";
import { isImageFormat, sniffFile, mediaConfig, withMediaSlot, type ImageFormat } from "@/lib/media";
import { readImageHeader } from "@/lib/media/image";
import { imageError, openImage, sharpSeconds } from "@/lib/media/sharp";
import { storage } from "@/lib/storage";
import { withTempDir } from "@/lib/files/temp";
import { describeFileKind } from "@/lib/media/kind-name";

export type ProfileImageKind = "avatar" | "banner";

export interface ProfileImageSpec {
  width: number;
  height: number;
  /** Largest accepted upload in bytes. */
  maxBytes: number;
}

const MB = 1024 * 1024;
export const PROFILE_IMAGES: Readonly<Record<ProfileImageKind, ProfileImageSpec>> = {
  avatar: { width: 512, height: 512, maxBytes: 10 * MB },
  banner: { width: 1500, height: 500, maxBytes: 10 * MB },
};

/** Multipart field the image is read from. */
export const PROFILE_IMAGE_FIELD = "file";
/** Output pixels over all frames: about 380 avatar frames or 130 banner frames. */
export const MAX_OUTPUT_PIXELS = 100_000_000;
/** A profile image is small work; a file that takes longer than this is refused. */
const MAX_PROCESSING_MS = 60_000;
const WEBP_QUALITY = 85;

/**
 * Receives the upload into a temporary folder and answers the file's path. The HTTP side
 * passes it (lib/routes/profile.ts): this module knows images, not request bodies.
 */
export type ImageReceiver = (tmpDir: string, maxBytes: number) => Promise<string>;

/** Stores a new avatar or banner for the user and removes the previous file. */
export async function setProfileImage(userId: string, kind: ProfileImageKind, receive: ImageReceiver, signal: AbortSignal): Promise<void> {
  const spec = PROFILE_IMAGES[kind];
  const webp = await withTempDir(async (dir) => {
    const path = await receive(dir, spec.maxBytes);
    const sniffed = await sniffFile(path);
    if (!sniffed || !isImageFormat(sniffed.format)) {
      const what = sniffed ? `a ${sniffed.format.toUpperCase()} video` : await describeFileKind(path);
      throw new DomainError("unsupported_type", `The ${kind} must be a PNG, JPEG, WebP or GIF image; this is ${what}.`);
    }
    return renderProfileImage(path, sniffed.format, spec, signal);
  });

  const key = `u/${userId}/${kind}-${newId()}.webp`;
  await storage().putBuffer(key, webp, "image/webp");
  try {
    await replaceImageKey(userId, kind, key);
  } catch (error) {
    await storage()
      .delete(key)
      .catch(() => undefined);
    throw error;
  }
}

/** Clears the avatar (back to the default) or banner (none) and removes its file. Idempotent. */
export async function removeProfileImage(userId: string, kind: ProfileImageKind): Promise<void> {
  await replaceImageKey(userId, kind, null);
}

/** Crop to the spec, strip metadata, encode as (possibly animated) WebP. */
async function renderProfileImage(path: string, format: ImageFormat, spec: ProfileImageSpec, signal: AbortSignal): Promise<Buffer> {
  // Format check against the sniffed type, pixel limits per frame and per animation.
  const meta = await readImageHeader(path, format);
  const frames = meta.pages ?? 1;
  const animated = frames > 1 && (format === "gif" || format === "webp");
  if (animated && frames * spec.width * spec.height > MAX_OUTPUT_PIXELS) {
    const most = Math.floor(MAX_OUTPUT_PIXELS / (spec.width * spec.height));
    throw new DomainError("invalid_request", `Animated images are limited to ${most} frames here; this one has ${frames}.`);
  }
  const timeout = { seconds: sharpSeconds(Math.min(mediaConfig().timeoutMs, MAX_PROCESSING_MS)) };
  return withMediaSlot(
    async () => {
      try {
        let image = openImage(path, { animated });
        // sharp cannot rotate multi-frame images; animations with EXIF orientation are unheard of.
        if (!animated) image = image.autoOrient();
        // No keepMetadata(): sharp writes no EXIF/XMP/ICC (pixels converted to sRGB).
        return await image
          .resize(spec.width, spec.height, { fit: "cover", position: "centre" })
          .webp({ quality: WEBP_QUALITY })
          .timeout(timeout)
          .toBuffer();
      } catch (error) {
        throw imageError(error);
      }
    },
    { signal, input: path },
  );
}

/**
 * Points the user's avatar/banner at `next` (null clears it) and deletes the file it
 * replaced. Compare-and-set on the previous key: a concurrent change makes the update
 * miss, and the loop reads again, so each replaced file is deleted exactly once.
 */
async function replaceImageKey(userId: string, kind: ProfileImageKind, next: string | null): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const user = await db().user.findUnique({ where: { id: userId }, select: { avatarKey: true, bannerKey: true } });
    if (!user) throw new DomainError("unauthorized", "The account behind this key no longer exists.");
    const previous = kind === "avatar" ? user.avatarKey : user.bannerKey;
    if (previous === next) return;
    const { count } = await db().user.updateMany({
      where: kind === "avatar" ? { id: userId, avatarKey: previous } : { id: userId, bannerKey: previous },
      data: kind === "avatar" ? { avatarKey: next } : { bannerKey: next },
    });
    if (count === 1) {
      if (previous) await deleteReplaced(userId, previous);
      return;
    }
  }
  throw new DomainError("unavailable", "The profile is being changed by another request; retry.", undefined, undefined, 1);
}

/**
 * Best effort: the row no longer points at the file, so a failed delete only leaves an
 * orphan (logged), never a broken profile. Only the user's own folder is touched, so a
 * key set by hand (e.g. pointing at a post's file) is never deleted from here.
 */
async function deleteReplaced(userId: string, key: string): Promise<void> {
  if (!key.startsWith(`u/${userId}/`)) return;
  try {
    await storage().delete(key);
  } catch (error) {
    console.error(`Could not delete replaced profile image ${key}:`, error);
  }
}
