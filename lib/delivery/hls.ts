/**
 * Adaptive streams under /cdn. A private post's playlists are rewritten so every URI carries a
 * signature with the playlist's own expiry: a player never holds an unsigned link, and a leaked
 * playlist dies with its signature.
 */
import { cacheableUntil, findDeliverableStream } from "@/lib/posts/files";
import { errorResponse } from "@/lib/http/respond";
import { storage } from "@/lib/storage";
import { cacheControl, FILE_SECURITY_HEADERS } from "./headers";
import { serveObject } from "./serve";
import { nowSeconds, signPath } from "@/lib/crypto/signing";
import type { CdnTarget } from "./cdn-path";
import { accessRefusal, REFUSALS } from "./decide";

const ASSET = /^[A-Za-z0-9_]{1,64}\.(m3u8|ts)$/;
export const PLAYLIST_TYPE = "application/vnd.apple.mpegurl";
export const SEGMENT_TYPE = "video/mp2t";

/** Signature and moderation rules are the files' (accessRefusal); an expired post has no stream. */
export async function serveHls(request: Request, target: Extract<CdnTarget, { kind: "hls" }>, query: URLSearchParams): Promise<Response> {
  const { code, name, asset, signedPath: path } = target;
  const match = ASSET.exec(asset);
  if (!match) return notFound();
  const stream = await findDeliverableStream(code, name);
  if (!stream) return notFound();
  const exp = query.get("exp") ?? "";
  const refused = accessRefusal(stream, path, query);
  if (refused) return errorResponse(REFUSALS[refused].error, REFUSALS[refused].message);
  const key = stream.prefix + asset;
  const playlist = match[1] === "m3u8";
  if (!stream.signed) {
    // A public post's stream is cached as its files are: publicly while the post never expires,
    // privately until its expiry otherwise (lib/delivery/headers.ts).
    const until = cacheableUntil(stream, undefined);
    return serveObject(request, {
      key,
      contentType: playlist ? PLAYLIST_TYPE : SEGMENT_TYPE,
      immutable: until === undefined,
      ...(until !== undefined ? { expiresAt: until } : {}),
    });
  }
  if (!playlist)
    return serveObject(request, { key, contentType: SEGMENT_TYPE, immutable: false, expiresAt: cacheableUntil(stream, Number(exp)) });

  const object = await storage().open(key);
  if (!object) return notFound();
  const chunks: Buffer[] = [];
  for await (const chunk of object.body) chunks.push(chunk as Buffer);
  const dir = path.slice(0, path.lastIndexOf("/") + 1);
  const body = signPlaylist(Buffer.concat(chunks).toString("utf8"), dir, Number(exp));
  return new Response(request.method === "HEAD" ? null : body, {
    status: 200,
    headers: {
      ...FILE_SECURITY_HEADERS,
      "content-type": PLAYLIST_TYPE,
      "content-length": String(Buffer.byteLength(body)),
      "cache-control": cacheControl(false, Number(exp), nowSeconds()),
    },
  });
}

/** Signs every URI line as `dir + uri`; anything but our own relative names is left out. */
export function signPlaylist(text: string, dir: string, expiresAt: number): string {
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const t = line.trim();
    if (!t || t.startsWith("#")) out.push(line);
    else if (ASSET.test(t)) out.push(`${t}${signPath(dir + t, expiresAt)}`);
  }
  return out.join("\n");
}

const notFound = () => errorResponse("not_found", "No such file.");
