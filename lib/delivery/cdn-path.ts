/** What a /cdn path names (docs/architecture.md, "A /cdn request's path"): the one parser both lanes use. */
import { RENDITION_SEGMENT, RENDITION_WIDTHS, parseRenditionSegments, type RenditionWidth } from "@/lib/renditions";

interface PostTarget {
  code: string;
  name: string;
  /** As requested (percent-encoded): what a signature covers. */
  signedPath: string;
}

export type CdnTarget =
  | ({ kind: "original" } & PostTarget)
  | ({ kind: "thumb" } & PostTarget)
  | ({ kind: "rendition"; width: RenditionWidth } & PostTarget)
  | ({ kind: "hls"; asset: string } & PostTarget)
  | { kind: "user"; key: string; contentType: string }
  /** Nothing /cdn serves: 404 `not_found` with this message. */
  | { kind: "none"; message: string };

export const NO_SUCH_FILE = "No such file.";
const none: CdnTarget = { kind: "none", message: NO_SUCH_FILE };
const badRendition: CdnTarget = {
  kind: "none",
  message: `No such rendition: the widths are ${RENDITION_WIDTHS.slice(0, -1).join(", ")} and ${RENDITION_WIDTHS.at(-1)}, as WebP.`,
};

const USER_MEDIA_TYPES: Readonly<Record<string, string>> = {
  webp: "image/webp",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
};
const USER_SEGMENT = /^[A-Za-z0-9._-]+$/;

function decodeSegments(segments: readonly string[]): string[] | null {
  const decoded: string[] = [];
  for (const segment of segments) {
    if (segment.indexOf("%") === -1) {
      decoded.push(segment);
      continue;
    }
    try {
      decoded.push(decodeURIComponent(segment));
    } catch {
      return null;
    }
  }
  return decoded;
}

export function parseCdnPath(path: string): CdnTarget {
  const decoded = decodeSegments(path.split("/"));
  if (!decoded) return none;
  const count = decoded.length;

  if (decoded[0] === "u" && count >= 3 && decoded.every((s) => USER_SEGMENT.test(s) && s !== ".." && s !== ".")) {
    const contentType = USER_MEDIA_TYPES[decoded[count - 1].split(".").pop()!.toLowerCase()];
    return contentType ? { kind: "user", key: decoded.join("/"), contentType } : none;
  }
  if (count === 4 && decoded[1] === "hls") {
    return { kind: "hls", code: decoded[0], name: decoded[2], asset: decoded[3], signedPath: path };
  }
  // Only a rendition path is sliced: this runs on every file request of the await-free lane.
  const rendition = count === 4 && decoded[1] === RENDITION_SEGMENT ? parseRenditionSegments(decoded.slice(1)) : null;
  if (rendition?.kind === "bad") return badRendition;
  if (rendition) return { kind: "rendition", code: decoded[0], name: rendition.name, width: rendition.width, signedPath: path };
  if (count === 3 && decoded[1] === "thumbs" && decoded[2].endsWith(".jpg")) {
    return { kind: "thumb", code: decoded[0], name: decoded[2].slice(0, -".jpg".length), signedPath: path };
  }
  if (count === 2) return { kind: "original", code: decoded[0], name: decoded[1], signedPath: path };
  return none;
}
