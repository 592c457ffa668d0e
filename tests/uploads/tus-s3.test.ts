/**
 * Resumable uploads on S3 storage (s3rver) with two instances sharing the database and the
 * bucket (docs/resumable-uploads.md): started on one, resumed and finished on the other;
 * the chunks live in the bucket until the post is made, then nothing of them is left.
 */
import { fork, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { createS3Client } from "@/lib/storage/s3";
import { fixture } from "../support/media";
import { startTestServer, type TestServer } from "../support/server";
import { startTus, tusAccount, tusRequest, until } from "../support/tus";

// Servers and real media on a shared machine: well above the 30 s default.
vi.setConfig({ testTimeout: 180_000 });

const BUCKET = "mediahost-tus";
let s3rver: ChildProcess | undefined;
let s3Dir = "";
let env: Record<string, string>;
let client: ReturnType<typeof createS3Client>;
const servers: TestServer[] = [];

beforeAll(async () => {
  s3Dir = mkdtempSync(join(tmpdir(), "mediahost-s3rver-"));
  s3rver = fork(fileURLToPath(new URL("../storage/s3rver-child.mjs", import.meta.url)), [s3Dir, BUCKET], {
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  const [message] = (await once(s3rver, "message")) as [{ port: number }];
  const endpoint = `http://127.0.0.1:${message.port}`;
  env = {
    RECOVERY_INTERVAL_SECONDS: "0",
    STORAGE: "s3",
    S3_BUCKET: BUCKET,
    S3_ENDPOINT: endpoint,
    S3_ACCESS_KEY_ID: "S3RVER",
    S3_SECRET_ACCESS_KEY: "S3RVER",
  };
  client = createS3Client({ bucket: BUCKET, endpoint, accessKeyId: "S3RVER", secretAccessKey: "S3RVER" });
}, 60_000);

afterAll(async () => {
  for (const s of servers.reverse()) await s.stop();
  client?.destroy();
  if (s3rver?.connected) {
    const exited = once(s3rver, "exit");
    s3rver.disconnect();
    await exited;
  }
  rmSync(s3Dir, { recursive: true, force: true });
});

const chunkKeys = async (): Promise<string[]> =>
  ((await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: "tus/" }))).Contents ?? []).map((o) => o.Key!);

it("an upload started on one instance is finished on another", async () => {
  const a = await startTestServer(env);
  servers.push(a);
  // The second instance shares the database (and, on SQLite, the DATA_DIR it lives in) and the bucket.
  const b = await startTestServer({ ...env, DATABASE_URL: a.env.DATABASE_URL }, { dataDir: a.dataDir });
  servers.push(b);
  const who = await tusAccount(a, "tus_s3");
  const video = await readFile(await fixture("mp4"));
  const chunkSize = Math.ceil(video.length / 2);
  const run = startTus(video, {
    endpoint: `${a.url}/api/tus`,
    key: who.key,
    chunkSize,
    metadata: { filename: "moved.mp4" },
    onChunk: (_x, upload) => void upload.abort(),
  });
  await until(
    async () => run.upload.url,
    (u) => u !== null,
  );
  const onA = run.upload.url!;
  await until(
    () => tusRequest(onA, who.key, "HEAD"),
    (r) => r.headers.get("upload-offset") === String(chunkSize),
  );
  const id = onA.split("/").pop()!;
  expect((await chunkKeys()).filter((k) => k.startsWith(`tus/${id}/`))).toHaveLength(1);

  // The same upload, through the other instance.
  const onB = `${b.url}/api/tus/${id}`;
  expect((await tusRequest(onB, who.key, "HEAD")).headers.get("upload-offset")).toBe(String(chunkSize));
  const resumed = startTus(video, { endpoint: `${b.url}/api/tus`, key: who.key, uploadUrl: onB });
  const { post } = await resumed.done;
  expect(resumed.patchOffsets).toEqual([chunkSize]);
  const read = (await (await fetch(`${a.url}/api/posts/${post}`, { headers: { "api-key": who.key } })).json()) as {
    post: { files: { name: string }[] };
  };
  expect(read.post.files.map((f) => f.name)).toEqual(["moved.mp4"]);
  expect(await chunkKeys()).toEqual([]);
  await b.kill();
}, 240_000);
