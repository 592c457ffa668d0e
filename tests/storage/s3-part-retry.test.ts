/**
 * A multipart part whose upload fails is sent again with the same bytes (docs/storage.md,
 * "Multipart retries"). A proxy in front of a real s3rver answers 500 InternalError to
 * the first attempt of one part, after reading its whole body as a real server would;
 * the SDK retries, and the stored object must be byte-identical to the file.
 */
import { createHash, randomBytes } from "node:crypto";
import { once } from "node:events";
import { fork, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request, type IncomingMessage, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRetryableS3Error, withRetries } from "@/lib/storage/retry";
import { S3Storage, createS3Client } from "@/lib/storage/s3";

const MiB = 1024 * 1024;
const BUCKET = "mediahost-retry";
const PART = 5 * MiB;
const FAILED_PART = "2";

const work = mkdtempSync(join(tmpdir(), "mediahost-s3-retry-"));
let s3rver: ChildProcess;
let proxy: Server;
let proxyUrl = "";
/** Every UploadPart the proxy saw for FAILED_PART: its body's SHA-256 and length. */
const attempts: { sha256: string; bytes: number }[] = [];

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Forwards to s3rver; the first UploadPart of FAILED_PART is read in full, then answered 500. */
function startProxy(target: number): Promise<string> {
  proxy = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const query = new URL(req.url ?? "/", "http://x").searchParams;
      if (req.method === "PUT" && query.get("partNumber") === FAILED_PART) {
        attempts.push({ sha256: createHash("sha256").update(body).digest("hex"), bytes: body.length });
        if (attempts.length === 1) {
          res.writeHead(500, { "content-type": "application/xml" });
          res.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code><Message>injected</Message></Error>');
          return;
        }
      }
      const upstream = request({ host: "127.0.0.1", port: target, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on("error", () => res.destroy());
      upstream.end(body);
    })();
  });
  return new Promise((done) => proxy.listen(0, "127.0.0.1", () => done(`http://127.0.0.1:${(proxy.address() as { port: number }).port}`)));
}

beforeAll(async () => {
  s3rver = fork(fileURLToPath(new URL("./s3rver-child.mjs", import.meta.url)), [join(work, "s3"), BUCKET], {
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  const [message] = (await once(s3rver, "message")) as [{ port: number }];
  proxyUrl = await startProxy(message.port);
});

afterAll(async () => {
  await new Promise((done) => proxy?.close(done));
  if (s3rver?.connected) {
    const exited = once(s3rver, "exit");
    s3rver.disconnect();
    await exited;
  }
  rmSync(work, { recursive: true, force: true });
});

it("a part that fails once is resent whole and the object ends byte-identical", async () => {
  // Three parts (5 + 5 + 2 MiB), each different, so a resent wrong range would show.
  const data = randomBytes(12 * MiB);
  const path = join(work, "big.mp4");
  writeFileSync(path, data);
  const config = { bucket: BUCKET, endpoint: proxyUrl, accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };
  const client = createS3Client(config);
  const storage = new S3Storage({ ...config, client, multipartThreshold: 6 * MiB, partSize: PART, partConcurrency: 2 });
  try {
    const info = await storage.putFile("f/retry/big.mp4", path, "video/mp4");
    expect(info.size).toBe(data.length);

    const second = data.subarray(PART, 2 * PART);
    const expected = { sha256: createHash("sha256").update(second).digest("hex"), bytes: second.length };
    expect(attempts).toEqual([expected, expected]);

    const stored = await storage.open("f/retry/big.mp4");
    const chunks: Buffer[] = [];
    for await (const chunk of stored!.body) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(data)).toBe(true);
  } finally {
    client.destroy();
  }
}, 60_000);

describe("which failures are tried again", () => {
  const failing = (error: unknown, times: number) => {
    let calls = 0;
    return {
      calls: () => calls,
      attempt: async (): Promise<string> => {
        calls++;
        if (calls <= times) throw error;
        return "ok";
      },
    };
  };
  const status = (code: number) => Object.assign(new Error(`status ${code}`), { $metadata: { httpStatusCode: code } });
  const fast = { attempts: 3, baseDelayMs: 1 };

  it("server errors, throttling and broken connections: yes; other 4xx: no", () => {
    for (const code of [500, 502, 503, 504, 429, 408]) expect(isRetryableS3Error(status(code)), String(code)).toBe(true);
    for (const code of [400, 403, 404, 409]) expect(isRetryableS3Error(status(code)), String(code)).toBe(false);
    expect(isRetryableS3Error(Object.assign(new Error("reset"), { code: "ECONNRESET" }))).toBe(true);
    expect(isRetryableS3Error(new Error("file is gone"))).toBe(false);
  });

  it("a retryable failure is tried up to 3 times in all, a final one is rethrown", async () => {
    const twice = failing(status(500), 2);
    await expect(withRetries(twice.attempt, fast)).resolves.toBe("ok");
    expect(twice.calls()).toBe(3);
    const always = failing(status(503), 99);
    await expect(withRetries(always.attempt, fast)).rejects.toThrow("status 503");
    expect(always.calls()).toBe(3);
  });

  it("a non-retryable failure is not tried again", async () => {
    const denied = failing(status(403), 1);
    await expect(withRetries(denied.attempt, fast)).rejects.toThrow("status 403");
    expect(denied.calls()).toBe(1);
  });
});
