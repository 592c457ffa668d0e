import { createWriteStream } from "node:fs";
import { open } from "node:fs/promises";
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";

/**
 * The baseline: a bare node:http server writing each request body, as received, to a file.
 * No multipart parsing, no processing, no fsync: the cost of getting the bytes to disk.
 * With `?sync=1` it fsyncs the file before it answers, as our server does before it
 * acknowledges an upload (the synced baseline: the same durability, nothing else).
 * Runs in a child process (like the real server) so it does not share our event loop.
 */
export function runSink(dir: string): void {
  let n = 0;
  const server = createHttpServer((req, res) => {
    const path = join(dir, `body-${n++}`);
    const durable = (req.url ?? "").includes("sync=1");
    pipeline(req, createWriteStream(path))
      .then(async () => {
        if (!durable) return;
        const handle = await open(path, "r");
        await handle.sync().finally(() => handle.close());
      })
      .then(
        () => {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({ ok: true }));
        },
        (error: unknown) => {
          res.writeHead(500, { "content-type": "text/plain" });
          res.end(String(error));
        },
      );
  });
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo;
    console.log(`listening on http://127.0.0.1:${port}`);
  });
  process.on("SIGTERM", () => server.close(() => process.exit(0)));
}
