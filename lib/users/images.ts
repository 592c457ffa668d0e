/**
 * Avatar and banner (docs/profiles.md). Re-encoded with sharp, never stored as sent: cropped to
 * a fixed size, EXIF orientation applied, then every metadata block dropped (an avatar is
 * public, a phone photo is not); animations stay animated, bounded by a cap on output pixels.
 * Every upload gets a new key (served immutably), switched with a compare-and-set on the
 * previous key so concurrent uploads never leak or delete a live file.
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
  maxBytes: number;
}

const MB = 1024 * 1024;
export const PROFILE_IMAGES: Readonly<Record<ProfileImageKind, ProfileImageSpec>> = {
  avatar: { width: 512, height: 512, maxBytes: 10 * MB },
  banner: { width: 1500, height: 500, maxBytes: 10 * MB },
};

export const PROFILE_IMAGE_FIELD = "file";
/** About 380 avatar frames or 130 banner frames. */
export const MAX_OUTPUT_PIXELS = 100_000_000;
const MAX_PROCESSING_MS = 60_000;
const WEBP_QUALITY = 85;

/** Receives the upload into a temporary folder; the HTTP side passes it in (lib/routes/profile.ts). */
export type ImageReceiver = (tmpDir: string, maxBytes: number) => Promise<string>;

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

/** Idempotent. */
export async function removeProfileImage(userId: string, kind: ProfileImageKind): Promise<void> {
  await replaceImageKey(userId, kind, null);
}

async function renderProfileImage(path: string, format: ImageFormat, spec: ProfileImageSpec, signal: AbortSignal): Promise<Buffer> {
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

/** Compare-and-set on the previous key: a concurrent change makes the update miss and the loop reads again, so each replaced file is deleted once. */
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

/** Best effort: a failed delete leaves an orphan, never a broken profile. Only the user's own folder: a key set by hand is never deleted. */
async function deleteReplaced(userId: string, key: string): Promise<void> {
  if (!key.startsWith(`u/${userId}/`)) return;
  try {
    await storage().delete(key);
  } catch (error) {
    console.error(`Could not delete replaced profile image ${key}:`, error);
  }
}
