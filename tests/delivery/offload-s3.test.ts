/**
 * DELIVERY_OFFLOAD=redirect on S3 storage (s3rver; docs/delivery-offload.md): /cdn checks
 * every rule, then answers a 302 to the object on S3, presigned (private, signed and
 * non-media files, with our type and disposition as S3's response overrides) or under
 * S3_PUBLIC_URL (public media). Following the redirect gives the stored bytes; ranges
 * follow it too, and an unsatisfiable one is still our 416.
 */
import { execFile, fork, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { GetObjectCommand } from "@aws-sdk/client-s3";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createS3Client } from "@/lib/storage/s3";
import { REDIRECT_MAX_SECONDS } from "@/lib/delivery/offload";
import { startTestServer, type TestServer } from "../support/server";

vi.setConfig({ testTimeout: 120_000 });

const run = promisify(execFile);
const BUCKET = "mediahost-offload";

interface PostJson {
  code: string;
  files: { url: string; name: string }[];
}

describe("DELIVERY_OFFLOAD=redirect on S3", () => {
  let s3rver: ChildProcess | undefined;
  let s3Dir = "";
  let endpoint = "";
  let server: TestServer;
  let client: ReturnType<typeof createS3Client>;
  let key: string;
  let image: Buffer;
  let admin: (...args: string[]) => Promise<Record<string, unknown>>;

  beforeAll(async () => {
    s3Dir = mkdtempSync(join(tmpdir(), "mediahost-s3rver-"));
    s3rver = fork(fileURLToPath(new URL("../storage/s3rver-child.mjs", import.meta.url)), [s3Dir, BUCKET], {
      stdio: ["ignore", "ignore", "inherit", "ipc"],
    });
    const [message] = (await once(s3rver, "message")) as [{ port: number }];
    endpoint = `http://127.0.0.1:${message.port}`;
    client = createS3Client({ bucket: BUCKET, endpoint, accessKeyId: "S3RVER", secretAccessKey: "S3RVER" });
    server = await startTestServer({
      RECOVERY_INTERVAL_SECONDS: "0",
      STORAGE: "s3",
      S3_BUCKET: BUCKET,
      S3_ENDPOINT: endpoint,
      S3_ACCESS_KEY_ID: "S3RVER",
      S3_SECRET_ACCESS_KEY: "S3RVER",
      S3_PUBLIC_URL: `${endpoint}/${BUCKET}`,
      DELIVERY_OFFLOAD: "redirect",
      UPLOAD_FILES: "media,text",
    });
    admin = async (...args: string[]) =>
      JSON.parse(
        (await run(process.execPath, ["scripts/launch.mjs", "admin", ...args], { env: { ...process.env, ...server.env } })).stdout,
      ) as Record<string, unknown>;
    await admin("user", "create", "--username", "redirect", "--plan", "ultra");
    key = (await admin("app", "create", "--user", "redirect", "--name", "Redirect", "--gallery-access")).key as string;
    image = await sharp({
      create: { width: 320, height: 240, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma: 30 } },
    })
      .jpeg({ quality: 90 })
      .toBuffer();
  }, 300_000);

  afterAll(async () => {
    await server?.stop();
    client?.destroy();
    if (s3rver?.connected) {
      const exited = once(s3rver, "exit");
      s3rver.disconnect();
      await exited;
    }
    rmSync(s3Dir, { recursive: true, force: true });
  });

  const path = (url: string): string => {
    const u = new URL(url);
    return u.pathname + u.search;
  };
  const get = (target: string, headers: Record<string, string> = {}, method = "GET"): Promise<Response> =>
    fetch(`${server.url}${target}`, { method, headers, redirect: "manual" });
  async function upload(bytes: Buffer, name: string, type: string, privacy = "public"): Promise<PostJson> {
    const send = (): Promise<Response> => {
      const form = new FormData();
      form.append("file", new Blob([new Uint8Array(bytes)], { type }), name);
      return fetch(`${server.url}/api/upload`, { method: "POST", headers: { "api-key": key, "post-privacy": privacy }, body: form });
    };
    // Once more when a pooled connection the server has just closed as idle fails (EPIPE).
    const res = await send().catch(send);
    const text = await res.text();
    expect(res.status, text).toBe(200);
    return (JSON.parse(text) as { post: PostJson }).post;
  }
  /** The object a redirect names, read with the S3 client (its key is the URL's path after the bucket). */
  async function objectOf(location: string): Promise<Buffer> {
    const objectKey = decodeURIComponent(new URL(location).pathname.slice(`/${BUCKET}/`.length));
    const object = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: objectKey }));
    return Buffer.from(await object.Body!.transformToByteArray());
  }

  it("a public image: 302 to its public URL, cached as the bytes would be; its bytes are the stored object's", async () => {
    const post = await upload(image, "photo.jpg", "image/jpeg");
    const res = await get(path(post.files[0].url));
    expect(res.status).toBe(302);
    const location = res.headers.get("location")!;
    expect(location.startsWith(`${endpoint}/${BUCKET}/`)).toBe(true);
    expect(location).not.toContain("X-Amz-Signature");
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, s-maxage=60, immutable");
    const followed = await fetch(location);
    expect(followed.status).toBe(200);
    expect(Buffer.from(await followed.arrayBuffer())).toEqual(await objectOf(location));

    // HEAD and 304 stay the service's; so does a range past the end (416), which needs the size.
    const head = await get(path(post.files[0].url), {}, "HEAD");
    expect(head.status).toBe(200);
    expect(head.headers.get("location")).toBeNull();
    const etag = head.headers.get("etag")!;
    expect((await get(path(post.files[0].url), { "if-none-match": etag })).status).toBe(304);
    const size = Number(head.headers.get("content-length"));
    const past = await get(path(post.files[0].url), { range: `bytes=${size}-` });
    expect(past.status).toBe(416);
    expect(past.headers.get("content-range")).toBe(`bytes */${size}`);
    const ranged = await get(path(post.files[0].url), { range: "bytes=100-199" });
    expect(ranged.status).toBe(302);
    const part = await fetch(ranged.headers.get("location")!, { headers: { range: "bytes=100-199" } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer())).toEqual((await objectOf(location)).subarray(100, 200));
  });

  it("a private file: no signature is 403; a signed URL is a 302 to a presigned URL that serves it with our headers", async () => {
    const post = await upload(image, "secret.jpg", "image/jpeg", "private");
    const signed = path(post.files[0].url);
    const refused = await get(signed.slice(0, signed.indexOf("?")));
    expect(refused.status).toBe(403);
    expect(refused.headers.get("location")).toBeNull();
    expect(((await refused.json()) as { error: { type: string } }).error.type).toBe("forbidden");

    const res = await get(signed);
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("location")!);
    expect(location.searchParams.get("X-Amz-Signature")).toMatch(/^[0-9a-f]{64}$/);
    expect(Number(location.searchParams.get("X-Amz-Expires"))).toBeLessThanOrEqual(REDIRECT_MAX_SECONDS);
    expect(location.searchParams.get("response-cache-control")).toMatch(/^private, max-age=\d+$/);
    expect(res.headers.get("cache-control")).toMatch(/^private, max-age=\d+$/);
    const followed = await fetch(location);
    expect(followed.status).toBe(200);
    expect(followed.headers.get("content-type")).toBe("image/jpeg");
    expect(followed.headers.get("cache-control")).toMatch(/^private, max-age=\d+$/);
    expect(Buffer.from(await followed.arrayBuffer())).toEqual(await objectOf(location.href));
  });

  it("a text file goes to a presigned URL with its kind's type; a moderated post is refused", async () => {
    const text = "redirected text\n".repeat(20);
    const paste = await upload(Buffer.from(text), "notes.txt", "text/plain");
    const res = await get(path(paste.files[0].url));
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("location")!);
    expect(location.searchParams.get("response-content-type")).toBe("text/plain; charset=utf-8");
    const followed = await fetch(location);
    expect(followed.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await followed.text()).toBe(text);

    const post = await upload(image, "moderated.jpg", "image/jpeg");
    expect((await get(path(post.files[0].url))).status).toBe(302);
    await admin("post", "moderate", "--code", post.code);
    const refused = await get(path(post.files[0].url));
    expect(refused.status).toBe(403);
    expect(refused.headers.get("location")).toBeNull();
  });
});
