/**
 * Resumable uploads (tus 1.0, docs/resumable-uploads.md) against the real production server,
 * with tus-js-client: a whole upload becomes the same post POST /upload makes; interrupted
 * between PATCHes and in the middle of one, it resumes where the server says; terminated,
 * over the plan's cap, over the quota, and the protocol's own errors.
 */
import { readFile } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { fixture } from "../support/media";
import { startTestServer, type TestServer } from "../support/server";
import { serverSession } from "../support/server-accounts";
import { diskChunks, failureBody, failureStatus, quotaUsed, startTus, tusAccount, tusRequest, until } from "../support/tus";

// Servers and real media on a shared machine: well above the 30 s default.
vi.setConfig({ testTimeout: 180_000 });

const FILE_CAP = 2_000_000;
const QUOTA = 3_000_000;

let server: TestServer;
let endpoint: string;
let video: Buffer;

beforeAll(async () => {
  server = await startTestServer({
    PLAN_FREE_UPLOAD_FILE_MAX: String(FILE_CAP),
    PLAN_FREE_WEEKLY_QUOTA: String(QUOTA),
    RECOVERY_INTERVAL_SECONDS: "0",
  });
  endpoint = `${server.url}/api/tus`;
  video = await readFile(await fixture("mp4"));
}, 240_000);
afterAll(async () => {
  await server?.stop();
});

const getPost = async (key: string, code: string) =>
  (await (await fetch(`${server.url}/api/posts/${code}`, { headers: { "api-key": key } })).json()) as {
    post: { code: string; privacy: string; files: { name: string; size: number; mime_type?: string }[] };
  };

describe("a whole upload", () => {
  it("becomes a post through POST /upload's pipeline, with the options from Upload-Metadata", async () => {
    const who = await tusAccount(server, "tus_whole");
    const run = startTus(video, {
      endpoint,
      key: who.key,
      metadata: { filename: "clip.mov", "post-privacy": "unlisted", priority: "false" },
    });
    const { post: code, url } = await run.done;
    expect(code).toMatch(/^[A-Za-z0-9]{10}$/);
    const { post } = await getPost(who.key, code!);
    expect(post.privacy).toBe("unlisted");
    // The video went through the media pipeline: remuxed MP4, named after the metadata.
    expect(post.files).toHaveLength(1);
    expect(post.files[0].name).toBe("clip.mp4");
    // The quota charges the stored size, as for POST /upload; the reservation of Upload-Length is gone.
    expect(await quotaUsed(server.url, who.key)).toBe(post.files[0].size);
    // HEAD after completion still names the post, and the bytes are gone.
    const head = await tusRequest(url, who.key, "HEAD");
    expect(head.status).toBe(200);
    expect(head.headers.get("upload-offset")).toBe(String(video.length));
    expect(head.headers.get("upload-post")).toBe(code);
    expect(diskChunks(server.dataDir)).toEqual([]);
  });

  it("appends to the post named by `post` in the metadata", async () => {
    const who = await tusAccount(server, "tus_append");
    const first = await startTus(video, { endpoint, key: who.key, metadata: { filename: "a.mp4" } }).done;
    const second = await startTus(video, { endpoint, key: who.key, metadata: { filename: "b.mp4", post: first.post! } }).done;
    expect(second.post).toBe(first.post);
    expect((await getPost(who.key, first.post!)).post.files.map((f) => f.name)).toEqual(["a.mp4", "b.mp4"]);
  });

  it("a file the pipeline refuses gets POST /upload's error, and leaves nothing behind", async () => {
    const who = await tusAccount(server, "tus_refused");
    const text = Buffer.from("not a picture at all\n".repeat(100));
    const error = await startTus(text, { endpoint, key: who.key, metadata: { filename: "notes.png" } }).done.catch((e: unknown) => e);
    expect(failureStatus(error)).toBe(400);
    expect(failureBody(error)?.error.type).toBe("unsupported_type");
    expect(await quotaUsed(server.url, who.key)).toBe(0);
    expect(diskChunks(server.dataDir)).toEqual([]);
  });
});

describe("interrupted uploads resume where the server says", () => {
  it("between PATCHes: a new client resumes from the offset HEAD reports", async () => {
    const who = await tusAccount(server, "tus_pause");
    const chunkSize = Math.ceil(video.length / 3);
    const first = startTus(video, {
      endpoint,
      key: who.key,
      metadata: { filename: "paused.mp4" },
      chunkSize,
      onChunk: (accepted, upload) => {
        if (accepted >= chunkSize) void upload.abort();
      },
    });
    // abort() settles neither callback: wait for the first chunk to be acknowledged.
    await until(
      async () => first.upload.url,
      (u) => u !== null,
    );
    const url = first.upload.url!;
    const offset = Number(
      (
        await until(
          () => tusRequest(url, who.key, "HEAD"),
          (r) => r.headers.get("upload-offset") === String(chunkSize),
        )
      ).headers.get("upload-offset"),
    );
    expect(offset).toBe(chunkSize);
    // While unfinished, Upload-Length is reserved from the quota.
    expect(await quotaUsed(server.url, who.key)).toBe(video.length);

    const resumed = startTus(video, { endpoint, key: who.key, uploadUrl: url, metadata: { filename: "paused.mp4" } });
    const { post } = await resumed.done;
    expect(resumed.patchOffsets[0]).toBe(chunkSize);
    expect((await getPost(who.key, post!)).post.files[0].name).toBe("paused.mp4");
  });

  it("in the middle of a PATCH: what arrived is kept, and the upload finishes from there", async () => {
    const who = await tusAccount(server, "tus_cut");
    const created = await tusRequest(endpoint, who.key, "POST", {
      "upload-length": String(video.length),
      "upload-metadata": `filename ${Buffer.from("cut.mp4").toString("base64")}`,
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("tus-resumable")).toBe("1.0.0");
    expect(Date.parse(created.headers.get("upload-expires")!)).toBeGreaterThan(Date.now());
    const url = created.headers.get("location")!;
    const half = Math.floor(video.length / 2);
    // The client sends half the body it announced, and the connection breaks.
    await new Promise<void>((resolve) => {
      const req = httpRequest(url, {
        method: "PATCH",
        headers: {
          "api-key": who.key,
          "tus-resumable": "1.0.0",
          "upload-offset": "0",
          "content-type": "application/offset+octet-stream",
          "content-length": String(video.length),
        },
      });
      req.on("error", () => resolve());
      req.write(video.subarray(0, half), () => {
        req.destroy();
        resolve();
      });
    });
    const head = await until(
      () => tusRequest(url, who.key, "HEAD"),
      (r) => r.headers.get("upload-offset") === String(half),
    );
    expect(head.headers.get("upload-offset")).toBe(String(half));
    const resumed = startTus(video, { endpoint, key: who.key, uploadUrl: url });
    const { post } = await resumed.done;
    expect(resumed.patchOffsets).toEqual([half]);
    expect((await getPost(who.key, post!)).post.files[0].name).toBe("cut.mp4");
  });
});

describe("termination, caps and quota", () => {
  it("DELETE terminates: the bytes and the reserved quota go, and the upload is 404", async () => {
    const who = await tusAccount(server, "tus_terminate");
    const chunkSize = Math.ceil(video.length / 2);
    const run = startTus(video, { endpoint, key: who.key, chunkSize, onChunk: (_a, upload) => void upload.abort() });
    await until(
      async () => run.upload.url,
      (u) => u !== null,
    );
    const url = run.upload.url!;
    await until(
      () => tusRequest(url, who.key, "HEAD"),
      (r) => r.headers.get("upload-offset") === String(chunkSize),
    );
    expect(diskChunks(server.dataDir)).toContain(url.split("/").pop());
    expect(await quotaUsed(server.url, who.key)).toBe(video.length);

    const deleted = await tusRequest(url, who.key, "DELETE");
    expect(deleted.status).toBe(204);
    expect(await quotaUsed(server.url, who.key)).toBe(0);
    expect(diskChunks(server.dataDir)).not.toContain(url.split("/").pop());
    expect((await tusRequest(url, who.key, "HEAD")).status).toBe(404);
  });

  it("over the plan's file cap: 413 file_too_large at creation, nothing reserved", async () => {
    const who = await tusAccount(server, "tus_cap");
    const reply = await tusRequest(endpoint, who.key, "POST", { "upload-length": String(FILE_CAP + 1) });
    expect(reply.status).toBe(413);
    expect(((await reply.json()) as { error: { type: string } }).error.type).toBe("file_too_large");
    // tus-js-client reports the same refusal before sending a byte.
    const refused = await startTus(Buffer.alloc(FILE_CAP + 1), { endpoint, key: who.key }).done.catch((e: unknown) => e);
    expect(failureStatus(refused)).toBe(413);
    expect(failureBody(refused)?.error.type).toBe("file_too_large");
    expect(await quotaUsed(server.url, who.key)).toBe(0);
  });

  it("bytes past Upload-Length: 413, and nothing of that body is stored", async () => {
    const who = await tusAccount(server, "tus_past");
    const created = await tusRequest(endpoint, who.key, "POST", { "upload-length": "1000" });
    const url = created.headers.get("location")!;
    const declared = await tusRequest(
      url,
      who.key,
      "PATCH",
      { "upload-offset": "0", "content-type": "application/offset+octet-stream" },
      Buffer.alloc(1001),
    );
    expect(declared.status).toBe(413);
    // Without a Content-Length (chunked), found while receiving.
    const streamed = await fetch(url, {
      method: "PATCH",
      headers: { "api-key": who.key, "tus-resumable": "1.0.0", "upload-offset": "0", "content-type": "application/offset+octet-stream" },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new Uint8Array(600));
          controller.enqueue(new Uint8Array(600));
          controller.close();
        },
      }),
      duplex: "half",
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect((await tusRequest(url, who.key, "HEAD")).headers.get("upload-offset")).toBe("0");
  });

  it("the quota is reserved at creation: a second upload that would pass it is refused, terminating gives it back", async () => {
    const who = await tusAccount(server, "tus_quota");
    const first = await tusRequest(endpoint, who.key, "POST", { "upload-length": String(FILE_CAP) });
    expect(first.status).toBe(201);
    const second = await tusRequest(endpoint, who.key, "POST", { "upload-length": String(QUOTA - FILE_CAP + 1) });
    expect(second.status).toBe(400);
    const body = (await second.json()) as { error: { type: string; used: number; quota: number } };
    expect(body.error).toMatchObject({ type: "quota_exceeded", used: FILE_CAP, quota: QUOTA });
    const refused = await startTus(Buffer.alloc(QUOTA - FILE_CAP + 1), { endpoint, key: who.key }).done.catch((e: unknown) => e);
    expect(failureStatus(refused)).toBe(400);
    expect(failureBody(refused)?.error.type).toBe("quota_exceeded");
    expect((await tusRequest(first.headers.get("location")!, who.key, "DELETE")).status).toBe(204);
    expect((await tusRequest(endpoint, who.key, "POST", { "upload-length": String(QUOTA - FILE_CAP + 1) })).status).toBe(201);
  });
});

describe("the protocol", () => {
  it("OPTIONS names the version, extensions and largest size", async () => {
    const reply = await fetch(endpoint, { method: "OPTIONS" });
    expect(reply.status).toBe(204);
    expect(reply.headers.get("tus-version")).toBe("1.0.0");
    expect(reply.headers.get("tus-extension")).toBe("creation,creation-with-upload,termination,expiration");
    expect(Number(reply.headers.get("tus-max-size"))).toBeGreaterThan(0);
    expect(reply.headers.get("access-control-allow-headers")).toContain("upload-offset");
  });

  it("without Tus-Resumable 412; a wrong offset 409; a wrong body type 415; another account's upload 404; no key 401", async () => {
    const who = await tusAccount(server, "tus_proto");
    const other = await tusAccount(server, "tus_proto_other");
    const noVersion = await fetch(endpoint, { method: "POST", headers: { "api-key": who.key, "upload-length": "10" } });
    expect(noVersion.status).toBe(412);
    expect(noVersion.headers.get("tus-version")).toBe("1.0.0");
    const created = await tusRequest(endpoint, who.key, "POST", { "upload-length": "10" });
    const url = created.headers.get("location")!;
    const octet = { "content-type": "application/offset+octet-stream" };
    expect((await tusRequest(url, who.key, "PATCH", { ...octet, "upload-offset": "5" }, Buffer.alloc(5))).status).toBe(409);
    expect((await tusRequest(url, who.key, "PATCH", { "content-type": "text/plain", "upload-offset": "0" }, Buffer.alloc(5))).status).toBe(
      415,
    );
    expect((await tusRequest(url, other.key, "HEAD")).status).toBe(404);
    expect((await tusRequest(url, other.key, "PATCH", { ...octet, "upload-offset": "0" }, Buffer.alloc(5))).status).toBe(404);
    expect((await fetch(url, { method: "HEAD", headers: { "tus-resumable": "1.0.0" } })).status).toBe(401);
    const badMeta = await tusRequest(endpoint, who.key, "POST", {
      "upload-length": "10",
      "upload-metadata": `post-privacy ${Buffer.from("secret").toString("base64")}`,
    });
    expect(badMeta.status).toBe(400);
    // Metadata that is not `key base64` pairs, a deferred length, a post that is not the caller's.
    expect((await tusRequest(endpoint, who.key, "POST", { "upload-length": "10", "upload-metadata": "filename a b" })).status).toBe(400);
    expect((await tusRequest(endpoint, who.key, "POST", { "upload-defer-length": "1" })).status).toBe(400);
    const strangers = await tusRequest(endpoint, other.key, "POST", {
      "upload-length": "10",
      "upload-metadata": `post ${Buffer.from("AAAAAAAAAA").toString("base64")}`,
    });
    expect(strangers.status).toBe(404);
  });

  it("creation-with-upload: the creating POST carries the first bytes", async () => {
    const who = await tusAccount(server, "tus_cwu");
    const half = Math.floor(video.length / 2);
    const created = await tusRequest(
      endpoint,
      who.key,
      "POST",
      { "upload-length": String(video.length), "content-type": "application/offset+octet-stream" },
      video.subarray(0, half),
    );
    expect(created.status).toBe(201);
    expect(created.headers.get("upload-offset")).toBe(String(half));
    const rest = await tusRequest(
      created.headers.get("location")!,
      who.key,
      "PATCH",
      { "content-type": "application/offset+octet-stream", "upload-offset": String(half) },
      video.subarray(half),
    );
    expect(rest.status).toBe(204);
    expect(rest.headers.get("upload-post")).toMatch(/^[A-Za-z0-9]{10}$/);
    // Finished: more bytes are a conflict.
    const more = await tusRequest(
      created.headers.get("location")!,
      who.key,
      "PATCH",
      { "content-type": "application/offset+octet-stream", "upload-offset": String(video.length) },
      Buffer.alloc(1),
    );
    expect(more.status).toBe(409);
  });

  it("Relay serves the same protocol at /relay/tus with a relay-key", async () => {
    await tusAccount(server, "tus_relay");
    const { key: relayKey } = await serverSession(server, "tus_relay");
    const created = await fetch(`${server.url}/relay/tus`, {
      method: "POST",
      headers: { "relay-key": relayKey, "tus-resumable": "1.0.0", "upload-length": String(video.length) },
    });
    expect(created.status).toBe(201);
    const url = created.headers.get("location")!;
    expect(url).toMatch(/\/relay\/tus\/[0-9a-f]{24}$/);
    const done = await fetch(url, {
      method: "PATCH",
      headers: { "relay-key": relayKey, "tus-resumable": "1.0.0", "upload-offset": "0", "content-type": "application/offset+octet-stream" },
      body: new Uint8Array(video),
    });
    expect(done.status).toBe(204);
    expect(done.headers.get("upload-post")).toMatch(/^[A-Za-z0-9]{10}$/);
  });

  it("the OpenAPI documents describe the tus endpoints", async () => {
    for (const surface of ["api", "relay"]) {
      const doc = (await (await fetch(`${server.url}/${surface}/openapi.json`)).json()) as {
        paths: Record<string, Record<string, { responses: Record<string, unknown>; parameters?: { name: string }[] }>>;
      };
      expect(Object.keys(doc.paths["/tus"])).toEqual(["post"]);
      expect(Object.keys(doc.paths["/tus/{id}"]).sort()).toEqual(["delete", "head", "patch"]);
      expect(doc.paths["/tus"].post.responses).toHaveProperty("201");
      expect(doc.paths["/tus/{id}"].patch.parameters?.map((p) => p.name)).toContain("upload-offset");
    }
  });
});
