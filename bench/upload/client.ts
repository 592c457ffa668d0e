/** The HTTP client: multipart bodies streamed from disk (or from one shared small buffer). */
import { createReadStream } from "node:fs";
import { type Agent, type IncomingHttpHeaders, request } from "node:http";
import { performance } from "node:perf_hooks";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { MiB } from "../support/run";

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  ms: number;
}

type Source = { path: string; size: number } | { buffer: Buffer };

/**
 * POSTs one `file` part. The body is preamble + the file + epilogue with an exact
 * Content-Length, streamed with backpressure: a 1 GiB file is never in the client's memory.
 * Timed from before the request is opened to the end of the response body.
 */
export function postFile(
  url: string,
  source: Source,
  filename: string,
  type: string,
  headers: Record<string, string>,
  agent: Agent,
): Promise<Reply> {
  const boundary = `----mediahost-bench-${Math.random().toString(36).slice(2)}`;
  const preamble = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`,
  );
  const epilogue = Buffer.from(`\r\n--${boundary}--\r\n`);
  const size = "buffer" in source ? source.buffer.length : source.size;
  async function* body(): AsyncGenerator<Buffer> {
    yield preamble;
    if ("buffer" in source) yield source.buffer;
    // 1 MiB reads: fewer, larger socket writes; the same for our server and the baseline.
    else for await (const chunk of createReadStream(source.path, { highWaterMark: MiB })) yield chunk as Buffer;
    yield epilogue;
  }
  return new Promise<Reply>((done, fail) => {
    const started = performance.now();
    const req = request(url, {
      method: "POST",
      agent,
      headers: {
        ...headers,
        "content-type": `multipart/form-data; boundary=${boundary}`,
        "content-length": String(preamble.length + size + epilogue.length),
      },
    });
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", fail);
      res.on("end", () =>
        done({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString("utf8"),
          ms: performance.now() - started,
        }),
      );
    });
    req.on("error", fail);
    // A server that answers early (413, 401...) resets the upload; its response still
    // arrives and settles the promise, so a write error here is only a fallback.
    pipeline(Readable.from(body()), req).catch(fail);
  });
}

interface UploadJson {
  url?: string;
  post?: { files?: { mime_type?: string; size?: number; width?: number; height?: number; duration?: number | null }[] };
  error?: { type?: string; message?: string };
}
const parseJson = (text: string): UploadJson => {
  try {
    return JSON.parse(text) as UploadJson;
  } catch {
    return {};
  }
};

export function expectUploaded(what: string, reply: Reply): UploadJson {
  const json = parseJson(reply.body);
  if (reply.status !== 200 || !json.url) throw new Error(`${what}: HTTP ${reply.status} ${reply.body.slice(0, 500)}`);
  return json;
}

/** Runs `jobs` tasks with at most `concurrency` in flight. */
export async function runPool(jobs: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, jobs) }, worker));
}
