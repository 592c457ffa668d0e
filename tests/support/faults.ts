/**
 * Helpers of the fault suites (tests/faults, docs/faults.md): a TCP proxy in front of a
 * dependency that the test can cut (nothing listens: connections are refused, open ones
 * are closed) and freeze (connections are accepted and kept, but no byte is forwarded
 * until it thaws), requests bounded by an abort timer, and uploads of fresh images.
 */
import { createServer, connect, type Server, type Socket } from "node:net";
import { randomBytes } from "node:crypto";
import sharp from "sharp";

export interface FaultProxy {
  port: number;
  /** Refuses new connections and closes the open ones. */
  cut(): Promise<void>;
  /** Keeps every connection, new ones too, but forwards nothing. */
  freeze(): void;
  /** Back to forwarding: listens again after a cut, delivers what waited after a freeze. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket;
  /** Bytes held while frozen, per direction. */
  toUpstream: Buffer[];
  toClient: Buffer[];
}

export async function openFaultProxy(target: { host: string; port: number }): Promise<FaultProxy> {
  const pairs = new Set<Pair>();
  let frozen = false;
  const onConnection = (client: Socket): void => {
    const upstream = connect(target.port, target.host);
    const pair: Pair = { client, upstream, toUpstream: [], toClient: [] };
    pairs.add(pair);
    client.on("data", (chunk) => (frozen ? pair.toUpstream.push(chunk) : upstream.write(chunk)));
    upstream.on("data", (chunk) => (frozen ? pair.toClient.push(chunk) : client.write(chunk)));
    const end = (): void => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
  };
  let server: Server = createServer(onConnection);
  const listen = (port: number): Promise<number> =>
    new Promise((done, fail) => {
      server.once("error", fail);
      server.listen(port, "127.0.0.1", () => done((server.address() as { port: number }).port));
    });
  const port = await listen(0);
  const stop = (): Promise<void> => new Promise((done) => server.close(() => done()));
  return {
    port,
    async cut() {
      const closed = stop();
      for (const pair of pairs) pair.client.destroy();
      await closed;
    },
    freeze() {
      frozen = true;
    },
    async restore() {
      if (frozen) {
        frozen = false;
        for (const pair of pairs) {
          for (const chunk of pair.toUpstream.splice(0)) pair.upstream.write(chunk);
          for (const chunk of pair.toClient.splice(0)) pair.client.write(chunk);
        }
      }
      if (!server.listening) {
        server = createServer(onConnection);
        await listen(port);
      }
    },
    async close() {
      for (const pair of pairs) pair.client.destroy();
      if (server.listening) await stop();
    },
  };
}

/**
 * fetch, failing the test when the whole answer (its body too) has not come within `ms`
 * (the bound under test). The body is read here: the timer would cut a body read later.
 */
export async function within(ms: number, url: string, init: RequestInit = {}): Promise<Response> {
  try {
    const reply = await fetch(url, { ...init, signal: AbortSignal.timeout(ms) });
    const body = await reply.arrayBuffer();
    return new Response(reply.status === 204 || reply.status === 304 ? null : body, { status: reply.status, headers: reply.headers });
  } catch (error) {
    throw new Error(`${init.method ?? "GET"} ${url}: no answer within ${ms} ms (${String(error)})`);
  }
}

/** A PNG of random pixels (it does not compress: about 3 bytes per pixel). */
export function noisePng(side: number): Promise<Buffer> {
  return sharp(randomBytes(side * side * 3), { raw: { width: side, height: side, channels: 3 } })
    .png()
    .toBuffer();
}

/** POST /api/upload of public images, as one request. */
export function uploadRequest(files: Buffer[], key: string): RequestInit {
  const body = new FormData();
  files.forEach((bytes, i) => body.append("file", new Blob([new Uint8Array(bytes)], { type: "image/png" }), `f${i}.png`));
  return { method: "POST", headers: { "api-key": key, "post-privacy": "public" }, body };
}

/** The outage lines a server printed for one dependency (lib/faults/outages.ts). */
export function outageLines(output: string, dependency: string): { down: string[]; up: string[] } {
  const lines = output.split("\n");
  return {
    down: lines.filter((line) => line.startsWith(`[faults] ${dependency} unavailable:`)),
    up: lines.filter((line) => line.startsWith(`[faults] ${dependency} available again`)),
  };
}

export interface Acknowledged {
  code: string;
  /** Path and query of the direct file URL. */
  file: string;
  size: number;
}

/** The post of a 200 upload reply: its code, its first file's direct path and stored size. */
export function acknowledged(body: { post: { code: string; files: { url: string; size: number }[] } }): Acknowledged {
  const url = new URL(body.post.files[0].url);
  return { code: body.post.code, file: url.pathname + url.search, size: body.post.files[0].size };
}

/**
 * The consistency check of docs/faults.md: every acknowledged post is readable and its file
 * has its bytes; the weekly usage equals the bytes the user's posts store. Returns that sum.
 */
export async function checkConsistency(base: string, key: string, acked: readonly Acknowledged[]): Promise<number> {
  const listed = new Map<string, number>();
  let cursor: string | null = null;
  do {
    const page = await fetch(`${base}/api/posts?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, {
      headers: { "api-key": key },
    });
    if (page.status !== 200) throw new Error(`GET /api/posts: ${page.status} ${await page.text()}`);
    const body = (await page.json()) as { posts: { code: string; files: { size: number }[] }[]; next_cursor: string | null };
    for (const post of body.posts)
      listed.set(
        post.code,
        post.files.reduce((sum, f) => sum + f.size, 0),
      );
    cursor = body.next_cursor;
  } while (cursor);
  for (const post of acked) {
    if (!listed.has(post.code)) throw new Error(`acknowledged post ${post.code} is not listed`);
    const read = await fetch(`${base}/api/posts/${post.code}`, { headers: { "api-key": key } });
    if (read.status !== 200) throw new Error(`GET /api/posts/${post.code}: ${read.status}`);
    const file = await fetch(`${base}${post.file}`);
    const bytes = Buffer.from(await file.arrayBuffer());
    if (file.status !== 200 || bytes.length !== post.size)
      throw new Error(`${post.file}: ${file.status}, ${bytes.length} bytes of ${post.size}`);
  }
  const me = (await (await fetch(`${base}/api/users/@me`, { headers: { "api-key": key } })).json()) as {
    limits: { usage: { used: number } };
  };
  const stored = [...listed.values()].reduce((sum, n) => sum + n, 0);
  if (me.limits.usage.used !== stored) throw new Error(`usage ${me.limits.usage.used} != stored ${stored}`);
  return stored;
}
