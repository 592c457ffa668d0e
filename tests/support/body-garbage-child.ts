/**
 * Child process of tests/uploads/body-garbage.test.ts: a server-like heap (~40 MB live, its
 * limit set by a full collection under `--heap-growing-percent=50`, as scripts/start.ts does)
 * receives BODY_MB of request body over a real socket, either through the resumable upload's
 * `receiveBody` (argv[2] "ours") or a bare pipeline to a file ("plain"). Prints one JSON line:
 * how many full (mark-compact) and young collections the receive took.
 */
import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { constants, PerformanceObserver } from "node:perf_hooks";
import { pipeline } from "node:stream/promises";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { receiveBody } from "@/lib/uploads/resumable";

const BODY_MB = 256;
const mode = process.argv[2];

// What a server keeps: many small objects, ~40 MB (the bench's server holds ~53 MB).
const kept: object[] = [];
for (let i = 0; i < 150_000; i++) kept.push({ a: i, b: `x${i}`, c: [i, i + 1], d: { e: i } });
setFlagsFromString("--expose-gc");
const fullGc = runInNewContext("gc") as () => void;
fullGc();
fullGc();

const counts = { major: 0, minor: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
    if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) counts.major++;
    else if (kind === constants.NODE_PERFORMANCE_GC_MINOR) counts.minor++;
  }
}).observe({ entryTypes: ["gc"] });

const dir = await mkdtemp(join(tmpdir(), "body-garbage-"));
const server = http.createServer(async (req, res) => {
  counts.major = 0;
  counts.minor = 0;
  const path = join(dir, "body");
  if (mode === "ours") await receiveBody(req, path, Number.MAX_SAFE_INTEGER, () => undefined);
  else await pipeline(req, createWriteStream(path, { highWaterMark: 1024 * 1024 }));
  // Observer entries arrive on a later turn.
  await new Promise((resolve) => setTimeout(resolve, 50));
  res.end(JSON.stringify({ ...counts, kept: kept.length, heapMb: Math.round(process.memoryUsage().heapUsed / 2 ** 20) }));
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));

// The client sends one reused buffer: the only buffers made per read are the server's.
const piece = Buffer.alloc(256 * 1024, 7);
const reply = await new Promise<string>((resolve, reject) => {
  const request = http.request({ port: (server.address() as AddressInfo).port, method: "PUT", host: "127.0.0.1" }, (response) => {
    let text = "";
    response.on("data", (chunk: Buffer) => (text += chunk.toString()));
    response.on("end", () => resolve(text));
  });
  request.on("error", reject);
  let left = (BODY_MB * 1024 * 1024) / piece.length;
  const write = (): void => {
    while (left > 0) {
      left--;
      if (!request.write(piece)) return void request.once("drain", write);
    }
    request.end();
  };
  write();
});
server.close();
await rm(dir, { recursive: true, force: true });
console.log(reply);
