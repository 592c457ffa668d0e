/**
 * Adaptive streams under /cdn: `/cdn/<code>/hls/<name>/<asset>`, where asset is the
 * master playlist (`master.m3u8`), a rendition playlist (`720p.m3u8`) or a segment
 * (`720p_0003.ts`). Public posts get the stored files as they are (cached like every
 * public file: lib/delivery/headers.ts). Private posts: every request must carry a valid signature over its own
 * path, and playlists are rewritten so that each URI they list carries a signature with
 * the same expiry as the playlist's own URL (24 h from when the post was read), so a
 * player never holds an unsigned link and a leaked playlist dies with its signature.
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

/**
 * An HLS target of /cdn (lib/delivery/cdn-path.ts). Its signature and moderation rules
 * are the files' (accessRefusal, lib/delivery/decide.ts); an expired post has no stream.
 */
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

/**
 * Appends `?exp=&sig=` to every URI line of a playlist. URIs are our own relative names
 * (`720p.m3u8`, `720p_0001.ts`), signed as `dir + uri`, which is the path the player
 * will request. Anything else (absolute URLs, paths) is left out of the playlist.
 */
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
