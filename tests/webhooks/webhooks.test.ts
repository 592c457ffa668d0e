/**
 * Webhooks end to end on the real server (docs/webhooks.md): events of uploads, comments,
 * moderation and deletion reach a real receiver, signed; failures are retried with backoff
 * and disable the webhook after WEBHOOK_DISABLE_AFTER events; the Discord format; app
 * scope; the address guard at creation. WEBHOOK_ALLOW_PRIVATE is an allow-list of
 * 127.0.0.1 only, so the receiver is reachable and every other private address is not.
 */
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifySignature } from "@/lib/webhooks/signature";
import { fixture } from "../support/media";
import { adminCli, startTestServer, type TestServer } from "../support/server";
import { serverUser, serverApp, serverSession } from "../support/server-accounts";
import { startReceiver, type Receiver } from "./receiver";

const RETRY_BASE_MS = 150;

interface Hook {
  id: string;
  url: string;
  events: string[];
  format: string;
  enabled: boolean;
  failure_count: number;
  disabled_reason: string | null;
  secret?: string;
  app_id: string | null;
}

describe("webhooks on a real server", () => {
  let server: TestServer;
  let receiver: Receiver;
  let key: string;
  let otherKey: string;
  let appId: string;
  let otherAppId: string;
  let commenterKey: string;
  let strangerKey: string;

  const call = async (surface: "api" | "relay", path: string, init: { method?: string; body?: unknown; key?: string } = {}) => {
    const k = init.key ?? key;
    const res = await fetch(`${server.url}/${surface}${path}`, {
      method: init.method ?? "GET",
      headers: {
        [surface === "api" ? "api-key" : "relay-key"]: k,
        ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
      },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> & { error?: { type: string; message: string } } };
  };
  const api = (path: string, init?: { method?: string; body?: unknown; key?: string }) => call("api", path, init);

  async function createHook(path: string, events: string[], extra: Record<string, unknown> = {}): Promise<Hook> {
    const res = await api("/webhooks", { method: "POST", body: { url: receiver.url(path), events, ...extra } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.webhook as Hook;
  }

  async function upload(withKey = key, privacy = "public"): Promise<{ code: string; files: { url: string; mime_type: string }[] }> {
    const body = new FormData();
    body.append("file", new Blob([await readFile(await fixture("png"))], { type: "image/png" }), "shot.png");
    const res = await fetch(`${server.url}/api/upload`, { method: "POST", body, headers: { "api-key": withKey, "post-privacy": privacy } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { post: { code: string; files: { url: string; mime_type: string }[] } }).post;
  }

  // biome-ignore lint/suspicious/noExplicitAny: event payloads are read as arbitrary JSON
  const json = (r: { body: string }) => JSON.parse(r.body) as { id: string; type: string; created_at: string; data: Record<string, any> };

  beforeAll(async () => {
    receiver = await startReceiver();
    server = await startTestServer({
      WEBHOOK_ALLOW_PRIVATE: "127.0.0.1",
      WEBHOOK_ATTEMPTS: "3",
      WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS),
      WEBHOOK_DISABLE_AFTER: "2",
      JOB_POLL_MS: "100",
      // This file creates more webhooks a minute than the write bucket's 20 (docs/rate-limits.md).
      RATE_LIMIT_SCALE: "10",
    });
    await serverUser(server, "hook_owner");
    await serverUser(server, "hook_fan");
    await serverUser(server, "hook_stranger");
    const app = await serverApp(server, "hook_owner", "ShareX", { galleryAccess: true });
    key = String(app.key);
    appId = String(app.id);
    const other = await serverApp(server, "hook_owner", "Flameshot", { galleryAccess: true });
    otherKey = String(other.key);
    otherAppId = String(other.id);
    commenterKey = String((await serverSession(server, "hook_fan")).key);
    strangerKey = String((await serverSession(server, "hook_stranger")).key);
  }, 240_000);
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  it("creates a webhook whose secret is shown once, and lists it without the secret", async () => {
    const hook = await createHook("/created", ["upload"]);
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(hook).toMatchObject({ events: ["upload"], format: "generic", enabled: true, failure_count: 0, app_id: null });
    const list = await api("/webhooks");
    const listed = (list.body.webhooks as Hook[]).find((h) => h.id === hook.id);
    expect(listed).toBeDefined();
    expect(listed).not.toHaveProperty("secret");
    expect((await api(`/webhooks/${hook.id}`)).body.webhook).not.toHaveProperty("secret");
    // Another account sees none of it.
    expect((await call("relay", `/webhooks/${hook.id}`, { key: strangerKey })).status).toBe(404);
    expect((await call("relay", `/webhooks/${hook.id}`, { method: "DELETE", key: strangerKey })).status).toBe(404);
    expect((await api(`/webhooks/${hook.id}`, { method: "DELETE" })).body).toEqual({ id: hook.id, deleted: true });
    expect((await api(`/webhooks/${hook.id}`)).status).toBe(404);
  });

  it("refuses bad input with 400 invalid_request", async () => {
    for (const body of [
      { url: "ftp://example.com/x", events: ["upload"] },
      { url: "not a url", events: ["upload"] },
      { url: "https://user:pw@example.com/", events: ["upload"] },
      { url: receiver.url("/x"), events: [] },
      { url: receiver.url("/x"), events: ["nope"] },
      { url: receiver.url("/x"), events: ["upload"], format: "slack" },
    ]) {
      const res = await api("/webhooks", { method: "POST", body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error?.type).toBe("invalid_request");
    }
    expect(
      (await api("/webhooks", { method: "POST", body: { url: receiver.url("/x"), events: ["upload"], app_id: "nosuchapp" } })).status,
    ).toBe(404);
  });

  it("refuses private, loopback, link-local and metadata addresses the operator did not allow", async () => {
    for (const url of [
      "http://10.0.0.5/hook",
      "http://169.254.169.254/latest/meta-data/",
      "http://[::1]:8080/hook",
      "http://[::ffff:127.0.0.2]/hook",
      "http://127.0.0.2/hook",
      "http://192.168.1.1/hook",
      "http://[fd00::1]/hook",
      "http://0.0.0.0/hook",
    ]) {
      const res = await api("/webhooks", { method: "POST", body: { url, events: ["upload"] } });
      expect(res.status, url).toBe(400);
      expect(res.body.error?.message, url).toMatch(/private, loopback or link-local/);
    }
  });

  it("delivers a signed upload event with the post as GET /posts returns it", async () => {
    const hook = await createHook("/upload", ["upload"]);
    const post = await upload();
    const [request] = await receiver.waitFor("/upload");
    const headers = request.headers;
    expect(headers["content-type"]).toBe("application/json");
    expect(headers["webhook-event"]).toBe("upload");
    expect(verifySignature(hook.secret!, String(headers["webhook-signature"]), String(headers["webhook-timestamp"]), request.body)).toBe(
      true,
    );
    // Signed over the timestamp too: another timestamp or body does not verify.
    expect(
      verifySignature(hook.secret!, String(headers["webhook-signature"]), String(Number(headers["webhook-timestamp"]) - 1), request.body),
    ).toBe(false);
    expect(
      verifySignature(hook.secret!, String(headers["webhook-signature"]), String(headers["webhook-timestamp"]), `${request.body} `),
    ).toBe(false);
    const event = json(request);
    expect(event.id).toBe(headers["webhook-id"]);
    expect(event.type).toBe("upload");
    expect(event.data.post.code).toBe(post.code);
    expect(event.data.post.files[0].url).toBe(post.files[0].url);
    // The delivery log has the attempt and the receiver's answer.
    let log = await api(`/webhooks/${hook.id}/deliveries`);
    while ((log.body.deliveries as unknown[]).length === 0) log = await api(`/webhooks/${hook.id}/deliveries`);
    expect((log.body.deliveries as Record<string, unknown>[])[0]).toMatchObject({
      event_id: event.id,
      event: "upload",
      attempt: 1,
      status: 200,
      ok: true,
      response: "thanks",
      error: null,
    });
    await api(`/webhooks/${hook.id}`, { method: "DELETE" });
  });

  it("delivers comment.received when someone else comments, post.moderated and post.deleted", async () => {
    const hook = await createHook("/social", ["comment.received", "post.moderated", "post.deleted"]);
    const post = await upload();
    // The owner's own comment is not "received"; the fan's is.
    expect(
      (
        await call("relay", `/posts/${post.code}/comments`, {
          method: "POST",
          body: { body: "my own note" },
          key: (await serverSession(server, "hook_owner")).key as string,
        })
      ).status,
    ).toBe(200);
    expect(
      (await call("relay", `/posts/${post.code}/comments`, { method: "POST", body: { body: "Nice shot!" }, key: commenterKey })).status,
    ).toBe(200);
    const [commented] = await receiver.waitFor("/social");
    const comment = json(commented);
    expect(comment.type).toBe("comment.received");
    expect(comment.data.comment).toMatchObject({ body: "Nice shot!", author: { username: "hook_fan" } });
    expect(comment.data.post.code).toBe(post.code);
    expect(comment.data.post.comment_count).toBe(2);

    // Moderation from another process (the admin CLI): queued before it exits.
    await adminCli(server, "post", "moderate", "--code", post.code);
    const moderated = json((await receiver.waitFor("/social", 2))[1]);
    expect(moderated.type).toBe("post.moderated");
    expect(moderated.data.moderation).toEqual({ action: "moderated", moderated: true, restricted: false });
    await adminCli(server, "post", "unmoderate", "--code", post.code);
    expect(json((await receiver.waitFor("/social", 3))[2]).data.moderation.action).toBe("released");

    expect((await api(`/posts/${post.code}`, { method: "DELETE" })).status).toBe(200);
    const deleted = json((await receiver.waitFor("/social", 4))[3]);
    expect(deleted.type).toBe("post.deleted");
    expect(deleted.data.post).toMatchObject({ code: post.code, file_count: 1 });
    // Only the subscribed events: no upload event reached this hook.
    expect(receiver.requests("/social").map((r) => json(r).type)).toEqual([
      "comment.received",
      "post.moderated",
      "post.moderated",
      "post.deleted",
    ]);
    await api(`/webhooks/${hook.id}`, { method: "DELETE" });
  });

  it("sends the Discord format: an embed with the image", async () => {
    const hook = await createHook("/discord", ["upload"], { format: "discord" });
    expect(hook.format).toBe("discord");
    const post = await upload();
    const [request] = await receiver.waitFor("/discord");
    const body = JSON.parse(request.body) as {
      content?: string;
      allowed_mentions: unknown;
      embeds: { title: string; url: string; image: { url: string } }[];
    };
    expect(body.allowed_mentions).toEqual({ parse: [] });
    expect(body.embeds).toHaveLength(1);
    expect(body.embeds[0].title).toBe(`New upload: ${post.code}`);
    expect(body.embeds[0].url).toContain(post.code);
    expect(body.embeds[0].image.url).toBe(post.files[0].url);
    expect(body.content).toBeUndefined();
    await api(`/webhooks/${hook.id}`, { method: "DELETE" });
  });

  it("scopes an app's webhook to the posts uploaded with that app's key", async () => {
    const scoped = await createHook("/scoped", ["upload"], { app_id: otherAppId });
    expect(scoped.app_id).toBe(otherAppId);
    const viaFirst = await upload(key);
    const viaSecond = await upload(otherKey);
    const [first] = await receiver.waitFor("/scoped");
    // The first event this hook got is the second app's upload: the first app's never came.
    expect(json(first).data.post.code).toBe(viaSecond.code);
    expect(json(first).data.post.code).not.toBe(viaFirst.code);
    expect(appId).not.toBe(otherAppId);
    await api(`/webhooks/${scoped.id}`, { method: "DELETE" });
  });

  it("sends a test ping on demand", async () => {
    const hook = await createHook("/ping", ["upload"]);
    const res = await api(`/webhooks/${hook.id}/test`, { method: "POST" });
    expect(res.status).toBe(200);
    const [request] = await receiver.waitFor("/ping");
    expect(json(request)).toMatchObject({ id: res.body.event_id, type: "ping" });
    await api(`/webhooks/${hook.id}`, { method: "DELETE" });
  });

  it("retries a failing receiver with backoff, then disables the webhook after repeated failures; re-enabling resumes", async () => {
    receiver.answer("/failing", 500);
    const hook = await createHook("/failing", ["upload"]);
    await upload();
    const attempts = await receiver.waitFor("/failing", 3);
    // One event, three attempts, the same webhook-id; each wait at least base × 4^(n-1).
    expect(new Set(attempts.map((a) => a.headers["webhook-id"])).size).toBe(1);
    expect(attempts[1].at - attempts[0].at).toBeGreaterThanOrEqual(RETRY_BASE_MS);
    expect(attempts[2].at - attempts[1].at).toBeGreaterThanOrEqual(RETRY_BASE_MS * 4);

    let state = (await api(`/webhooks/${hook.id}`)).body.webhook as Hook;
    while (state.failure_count < 1) state = (await api(`/webhooks/${hook.id}`)).body.webhook as Hook;
    expect(state.enabled).toBe(true);

    // A second event fails every attempt too: WEBHOOK_DISABLE_AFTER=2 disables the hook.
    await upload();
    await receiver.waitFor("/failing", 6);
    while (state.enabled) state = (await api(`/webhooks/${hook.id}`)).body.webhook as Hook;
    expect(state.failure_count).toBe(2);
    expect(state.disabled_reason).toMatch(/Disabled after 2 events in a row failed/);
    const log = (await api(`/webhooks/${hook.id}/deliveries?limit=100`)).body.deliveries as {
      attempt: number;
      status: number;
      ok: boolean;
      response: string;
    }[];
    expect(log).toHaveLength(6);
    expect(log.map((d) => d.attempt).sort()).toEqual([1, 1, 2, 2, 3, 3]);
    expect(log.every((d) => d.status === 500 && !d.ok && d.response === "nope 500")).toBe(true);

    // Disabled: a new event is not delivered. The check: a ping (which disabled hooks still
    // get) arrives, and it is the only new request.
    await upload();
    await api(`/webhooks/${hook.id}/test`, { method: "POST" });
    const after = await receiver.waitFor("/failing", 7);
    expect(json(after[6]).type).toBe("ping");

    // Re-enabled (the receiver fixed): the next event is delivered and the count is reset.
    receiver.answer("/failing", 200);
    const enabled = (await api(`/webhooks/${hook.id}`, { method: "PATCH", body: { enabled: true } })).body.webhook as Hook;
    expect(enabled).toMatchObject({ enabled: true, failure_count: 0, disabled_reason: null });
    const post = await upload();
    const [last] = (await receiver.waitFor("/failing", 8)).slice(7);
    expect(json(last).data.post.code).toBe(post.code);
  });
});
