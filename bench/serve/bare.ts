/**
 * The reference of the file, range, post and share pairs: one bare `node:http` server in a
 * child process of its own (`bench/serve.ts --bare <config.json>`), serving the bytes and
 * headers our server sent for the same resource.
 */
import { createReadStream, fstatSync, openSync, readFileSync, readSync, stat } from "node:fs";
import { writeFile } from "node:fs/promises";
import { createServer as createHttpServer, type OutgoingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { baseEnv, type Child, spawnListening } from "../support/server";
import type { Target } from "./load";
import type { PairName } from "./options";
import { mirrorHeaders, type Probe } from "./ours";
import { RANGE_BYTES } from "./seed";

interface BareBody {
  path: string;
  headers: OutgoingHttpHeaders;
}

interface BareConfig {
  file: BareBody;
  video: BareBody & { start: number; end: number };
  json: BareBody;
  share: BareBody;
}

/**
 * `--bare <config.json>`: files are stat'ed and streamed from disk per request, as a plain
 * Node file server does (stat + createReadStream + pipe); the JSON and the page are fixed
 * bodies from memory. Each reply carries the headers our server sent for the same resource.
 */
export function runBare(configPath: string): void {
  const config = JSON.parse(readFileSync(configPath, "utf8")) as BareConfig;
  const json = readFileSync(config.json.path);
  const share = readFileSync(config.share.path);
  const fileFd = openSync(config.file.path, "r");
  const videoFd = openSync(config.video.path, "r");
  const server = createHttpServer((req, res) => {
    if (req.url === "/file") {
      stat(config.file.path, (error, info) => {
        if (error) return void res.writeHead(500).end();
        res.writeHead(200, { ...config.file.headers, "content-length": info.size });
        createReadStream(config.file.path).pipe(res);
      });
    } else if (req.url === "/range") {
      const { start, end } = config.video;
      stat(config.video.path, (error, info) => {
        if (error) return void res.writeHead(500).end();
        res.writeHead(206, {
          ...config.video.headers,
          "content-range": `bytes ${start}-${end}/${info.size}`,
          "content-length": end - start + 1,
        });
        createReadStream(config.video.path, { start, end }).pipe(res);
      });
    } else if (req.url === "/file-fd") {
      // The same bytes with no thread-pool round trip: a descriptor opened once, fstat and a
      // positioned read on the main thread per request (FD_REFERENCE in file-range.ts).
      const size = fstatSync(fileFd).size;
      const body = Buffer.allocUnsafe(size);
      readSync(fileFd, body, 0, size, 0);
      res.writeHead(200, { ...config.file.headers, "content-length": size });
      res.end(body);
    } else if (req.url === "/range-fd") {
      const { start, end } = config.video;
      const size = fstatSync(videoFd).size;
      const body = Buffer.allocUnsafe(end - start + 1);
      readSync(videoFd, body, 0, body.length, start);
      res.writeHead(206, { ...config.video.headers, "content-range": `bytes ${start}-${end}/${size}`, "content-length": body.length });
      res.end(body);
    } else if (req.url === "/json") {
      res.writeHead(200, { ...config.json.headers, "content-length": json.length });
      res.end(json);
    } else if (req.url === "/share") {
      res.writeHead(200, { ...config.share.headers, "content-length": share.length });
      res.end(share);
    } else {
      res.writeHead(404).end();
    }
  });
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo;
    console.log(`listening on http://127.0.0.1:${port}`);
  });
  process.on("SIGTERM", () => server.close(() => process.exit(0)));
}

/** Our replies the reference copies. */
export interface Replies {
  cdn: Probe;
  range: Probe;
  post: Probe;
  share: Probe;
  video: Buffer;
}

/** Writes our replies' bytes and headers to `work` and starts the reference on them. */
export async function startBare(work: string, replies: Replies): Promise<Child> {
  const bareConfig: BareConfig = {
    file: { path: join(work, "photo.jpg"), headers: mirrorHeaders(replies.cdn.headers) },
    video: { path: join(work, "clip.mp4"), headers: mirrorHeaders(replies.range.headers), start: 0, end: RANGE_BYTES - 1 },
    json: { path: join(work, "post.json"), headers: mirrorHeaders(replies.post.headers) },
    share: { path: join(work, "share.html"), headers: mirrorHeaders(replies.share.headers) },
  };
  await writeFile(bareConfig.file.path, replies.cdn.body);
  await writeFile(bareConfig.video.path, replies.video);
  await writeFile(bareConfig.json.path, replies.post.body);
  await writeFile(bareConfig.share.path, replies.share.body);
  await writeFile(join(work, "bare.json"), JSON.stringify(bareConfig));
  return spawnListening("bare server", ["--import", "tsx", "bench/serve.ts", "--bare", join(work, "bare.json")], {
    ...baseEnv(),
    NODE_ENV: "production",
  });
}

/** One target of a pair, on our server or the bare reference. */
export type TargetOf = (
  name: string,
  pair: PairName,
  label: string,
  path: string,
  headers?: Record<string, string>,
  keyFile?: string,
) => Target;

/** The target builders of the pairs served by our server and the bare reference: the same fields either way. */
export function sides(server: Child, bare: Child): { ours: TargetOf; reference: TargetOf } {
  const targetOf =
    (side: "ours" | "reference"): TargetOf =>
    (name, pair, label, path, headers = {}, keyFile) => ({
      name,
      pair,
      side,
      label,
      url: `${side === "ours" ? server.url : bare.url}${path}`,
      pid: side === "ours" ? server.pid : bare.pid,
      headers,
      ...(keyFile ? { keyFile } : {}),
    });
  return { ours: targetOf("ours"), reference: targetOf("reference") };
}
