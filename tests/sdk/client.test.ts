/**
 * The SDK (sdk/src, docs/sdk.md) against the real server: uploads streamed from disk,
 * typed reads, paging across pages, typed errors with request-id and retry-after, and
 * Relay sign-in followed by Relay calls. Also: the served OpenAPI documents give exactly
 * the committed generated types, so the client is typed by what the server serves.
 */
import { readFileSync, statSync } from "node:fs";
import { rm, truncate, writeFile } from "node:fs/promises";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createApiClient,
  createRelayClient,
  fromPath,
  isMediaHostError,
  MediaHostError,
  register,
  signIn,
  type ApiClient,
} from "@/sdk/src/node";
import { typesFromDocument, GENERATED_FILES } from "@/scripts/sdk-types";
import { fixture, scratchDir } from "../support/media";
import { startTestServer, type TestServer } from "../support/server";
import { serverUser, serverApp } from "../support/server-accounts";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** The rejection of `promise`, which must be a MediaHostError. */
async function failure(promise: Promise<unknown>): Promise<MediaHostError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MediaHostError);
  return error as MediaHostError;
}

describe("the SDK against the server", () => {
  let server: TestServer;
  let api: ApiClient;
  let apiKey: string;
  let apiUrl: string;
  let relayUrl: string;
  beforeAll(async () => {
    server = await startTestServer();
    apiUrl = `${server.url}/api`;
    relayUrl = `${server.url}/relay`;
    await serverUser(server, "sdk_owner", "plus");
    const { key } = (await serverApp(server, "sdk_owner", "SDK", { galleryAccess: true })) as {
      key: string;
    };
    apiKey = key;
    api = createApiClient({ baseUrl: apiUrl, apiKey: key });
  }, 300_000);
  afterAll(async () => {
    if (server) await server.stop();
  });

  it("the served OpenAPI documents generate exactly the committed types", async () => {
    for (const surface of ["api", "relay"] as const) {
      const served = (await (await fetch(`${server.url}/${surface}/openapi.json`)).json()) as Record<string, unknown>;
      expect(await typesFromDocument(served, surface), surface).toBe(readFileSync(join(root, GENERATED_FILES[surface]), "utf8"));
    }
  });

  it("uploads files from disk (an image and a video in one album) and reads the post back", async () => {
    const png = await fixture("png");
    const mp4 = await fixture("mp4");
    const reply = await api.upload([await fromPath(png, "shot.png"), await fromPath(mp4)], { privacy: "unlisted", priority: false });
    if (!("post" in reply)) throw new Error(`expected one post: ${JSON.stringify(reply)}`);
    expect(reply.failed ?? []).toEqual([]);
    expect(reply.post.privacy).toBe("unlisted");
    expect(reply.post.files.map((f) => f.mime_type)).toEqual(["image/png", "video/mp4"]);
    expect(reply.url).toBe(reply.post.files[0].url);

    const { post } = await api.get("/posts/{code}", { params: { path: { code: reply.post.code } } });
    expect(post.code).toBe(reply.post.code);
    expect(post.file_count).toBe(2);
    // The direct link serves the stored image (metadata stripped, so not byte-equal to the source).
    const file = await fetch(post.files[0].url);
    expect(file.status).toBe(200);
    expect(Number(file.headers.get("content-length"))).toBeGreaterThan(0);
    expect(statSync(png).size).toBeGreaterThan(0);
  });

  it("streams a large file from disk: the client's memory does not grow by the file's size", async () => {
    // 400 MB of zeros (a sparse file: no disk, fast to read). Not a media type, so the
    // service answers unsupported_type once it has received and sniffed the file.
    const path = join(await scratchDir(), "big.bin");
    const size = 400 * 1024 * 1024;
    await writeFile(path, "");
    await truncate(path, size);
    const source = await fromPath(path);
    const before = process.memoryUsage().rss;
    const error = await failure(api.upload(source));
    // ru_maxrss is the process's peak resident set in KiB: a buffered body (Node's fetch
    // tees a body it may have to replay on a redirect) puts it 400 MB above the resident
    // set before the upload; streamed, it stays within a few MB.
    const peak = process.resourceUsage().maxRSS * 1024;
    expect([error.type, error.status]).toEqual(["unsupported_type", 400]);
    expect(peak - before, `resident set before ${before >> 20} MB, peak ${peak >> 20} MB`).toBeLessThan(size / 2);
    await rm(path, { force: true });
  }, 120_000);

  it("adds files to a post and edits it through typed calls", async () => {
    const reply = await api.upload(await fromPath(await fixture("pngPlain")));
    if (!("post" in reply)) throw new Error("expected one post");
    const code = reply.post.code;
    const added = await api.addFiles(code, [await fromPath(await fixture("gif"))]);
    expect(added.post.file_count).toBe(2);
    const edited = await api.patch("/posts/{code}", { params: { path: { code } }, body: { title: "From the SDK" } });
    expect(edited.post.title).toBe("From the SDK");
    const gone = await api.delete("/posts/{code}", { params: { path: { code } } });
    expect(gone).toEqual({ code, deleted: true });
  });

  it("converts a file from disk and hands back the result unread, with its name and type", async () => {
    const converted = await api.convert(await fromPath(await fixture("pngPlain"), "picture.png"), "webp");
    expect(converted.type).toBe("image/webp");
    expect(converted.filename).toBe("picture.webp");
    const bytes = Buffer.from(await new Response(converted.body).arrayBuffer());
    expect(bytes.subarray(0, 4).toString("latin1")).toBe("RIFF");
    expect(bytes.subarray(8, 12).toString("latin1")).toBe("WEBP");
    expect(converted.size).toBe(bytes.length);
    const refused = await failure(api.convert(await fromPath(await fixture("pngPlain")), "mp3"));
    expect([refused.type, refused.status]).toEqual(["unsupported_type", 400]);
  });

  it("pages through GET /posts: every post once, newest first, over more than one page", async () => {
    // Four posts from one request (post-type single: one post per file).
    const image = await fromPath(await fixture("pngPlain"));
    const reply = await api.upload([image, image, image, image], { postType: "single", privacy: "public" });
    if (!("posts" in reply)) throw new Error("expected several posts");
    expect(reply.posts).toHaveLength(4);

    const pages = [];
    for await (const page of api.pages("/posts", { params: { query: { limit: 2 } } })) pages.push(page);
    expect(pages.length).toBeGreaterThan(1);
    expect(pages[0].has_more).toBe(true);
    expect(pages.at(-1)!.has_more).toBe(false);
    expect(pages.at(-1)!.next_cursor).toBeNull();

    const codes: string[] = [];
    for await (const post of api.paginate("/posts", { params: { query: { limit: 2 } } })) codes.push(post.code);
    expect(codes).toEqual(pages.flatMap((p) => p.posts.map((post) => post.code)));
    expect(new Set(codes).size).toBe(codes.length);
    for (const post of reply.posts) expect(codes).toContain(post.code);
    // Newest first: the single-post request's posts come before everything uploaded earlier.
    expect(codes.slice(0, 4).sort()).toEqual(reply.posts.map((p) => p.code).sort());

    // A filter stays on every page (the iterator only adds the cursor).
    const publicCodes: string[] = [];
    for await (const post of api.paginate("/posts", { params: { query: { limit: 1, privacy: "public" } } })) publicCodes.push(post.code);
    expect(publicCodes.sort()).toEqual(reply.posts.map((p) => p.code).sort());
  });

  it("the Node example of docs/sdk.md runs as written: uploads, lists, and prints a typed error", async () => {
    const page = readFileSync(join(root, "docs", "sdk.md"), "utf8");
    const section = page.slice(page.indexOf("## Examples"));
    const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    expect(code).toContain('from "./sdk/src/node.ts"');
    // The example imports from the repository root; the copy runs from a scratch folder.
    const script = join(await scratchDir(), "sdk-example.mts");
    await writeFile(script, code!.replace('"./sdk/src/node.ts"', JSON.stringify(join(root, "sdk/src/node.ts"))));
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", script, await fixture("pngPlain")], {
      cwd: root,
      env: { ...process.env, MEDIAHOST_API_URL: apiUrl, MEDIAHOST_API_KEY: apiKey },
    });
    const lines = stdout.trim().split("\n");
    const shared = /^share page (\S+), direct link (\S+)$/.exec(lines[0]);
    expect(shared, stdout).not.toBeNull();
    const code_ = shared![1].split("/").at(-1)!;
    expect(lines[1]).toBe(`${code_} unlisted 1`);
    expect(lines.at(-1)).toMatch(/^not_found \(404\), request [0-9a-f]{32}, retry after - s$/);

    // As written with a key made in the dashboard (no gallery access): it still runs through.
    const plain = (await serverApp(server, "sdk_owner", "Dashboard-like")).key as string;
    const again = await promisify(execFile)(process.execPath, ["--import", "tsx", script, await fixture("pngPlain")], {
      cwd: root,
      env: { ...process.env, MEDIAHOST_API_URL: apiUrl, MEDIAHOST_API_KEY: plain },
    });
    const plainLines = again.stdout.trim().split("\n");
    expect(plainLines[0]).toMatch(/^share page \S+, direct link \S+$/);
    expect(plainLines[1]).toBe("listing needs a key with gallery access");
    expect(plainLines.at(-1)).toMatch(/^not_found \(404\)/);
  });

  it("a 404 is a MediaHostError not_found with the request-id of the reply", async () => {
    const error = await failure(api.get("/posts/{code}", { params: { path: { code: "nosuchpost" } } }));
    expect(error.type).toBe("not_found");
    expect(error.status).toBe(404);
    expect(error.requestId).toMatch(/^[0-9a-f]{32}$/);
    expect(error.retryAfter).toBeNull();
    expect(isMediaHostError(error, "not_found")).toBe(true);
  });

  it("a wrong key is a MediaHostError unauthorized (401)", async () => {
    const stranger = createApiClient({ baseUrl: apiUrl, apiKey: "not-a-key" });
    const error = await failure(stranger.get("/users/{id}", { params: { path: { id: "@me" } } }));
    expect([error.type, error.status]).toEqual(["unauthorized", 401]);
    expect(error.requestId).toMatch(/^[0-9a-f]{32}$/);
  });

  it("an invalid limit is invalid_request (400), from the paging iterator too", async () => {
    const error = await failure(api.pages("/posts", { params: { query: { limit: 500 } } }).next());
    expect([error.type, error.status]).toEqual(["invalid_request", 400]);
    expect(error.message).toMatch(/limit/);
  });

  it("Relay: register, sign in again, call Relay with the key, and a rate limit is rate_limited with retry_after", async () => {
    const first = await register({ baseUrl: relayUrl, username: "sdk_relay", password: "correct horse battery", device: "SDK test" });
    expect(first.key).toBeTruthy();
    const me = await first.client.get("/users/{id}", { params: { path: { id: "@me" } } });
    expect(me.username).toBe("sdk_relay");

    const again = await signIn({ baseUrl: relayUrl, username: "sdk_relay", password: "correct horse battery" });
    expect(again.key).not.toBe(first.key);
    const relay = createRelayClient({ baseUrl: relayUrl, relayKey: again.key });
    const sessions = await relay.get("/sessions");
    expect(sessions.sessions.map((s) => s.id).sort()).toEqual([first.session.id, again.session.id].sort());

    const wrong = await failure(signIn({ baseUrl: relayUrl, username: "sdk_relay", password: "wrong password!" }));
    expect([wrong.type, wrong.status]).toEqual(["unauthorized", 401]);

    // A public post of the API user: like it through Relay.
    const upload = await api.upload(await fromPath(await fixture("pngPlain")), { privacy: "public" });
    if (!("post" in upload)) throw new Error("expected one post");
    const code = upload.post.code;
    const liked = await relay.post("/posts/{code}/like", { params: { path: { code } } });
    expect(liked).toEqual({ liked: true, like_count: 1 });

    // Reports: 3 a minute per user (interface.md "Rate limits"); the 4th is refused.
    for (let i = 0; i < 3; i++)
      await relay.post("/posts/{code}/report", { params: { path: { code } }, body: { reason: `spam ${i}` } }).catch(() => undefined);
    const limited = await failure(relay.post("/posts/{code}/report", { params: { path: { code } }, body: {} }));
    expect([limited.type, limited.status]).toEqual(["rate_limited", 429]);
    expect(limited.retryAfter).toBeGreaterThan(0);
    expect(limited.retryAfter).toBeLessThanOrEqual(60);
    expect(limited.requestId).toMatch(/^[0-9a-f]{32}$/);
  });
});
