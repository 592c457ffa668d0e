/** A real HTTP receiver for webhook tests: records every request; answers with the status set per path. */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Receiver {
  url: (path: string) => string;
  /** Every request so far to `path`. */
  requests: (path: string) => Received[];
  /** The status answered on `path` from now on (default 200). */
  answer: (path: string, status: number) => void;
  /** Waits until `count` requests reached `path` (the test's own time limit bounds the wait). */
  waitFor: (path: string, count?: number) => Promise<Received[]>;
  close: () => Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const seen: Received[] = [];
  const statuses = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "/";
      seen.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() });
      const status = statuses.get(path) ?? 200;
      res.writeHead(status, { "content-type": "text/plain" });
      res.end(status < 300 ? "thanks" : `nope ${status}`);
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  const requests = (path: string) => seen.filter((r) => r.path === path);
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    requests,
    answer: (path, status) => void statuses.set(path, status),
    async waitFor(path, count = 1) {
      while (requests(path).length < count) await new Promise((r) => setTimeout(r, 25));
      return requests(path);
    },
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}
