/**
 * Guest uploads into a folder through the real server over HTTP (docs/guest-uploads.md):
 * a guest's multipart upload without a key, the owner's private post and notification, the
 * `folder.guest_upload` webhook delivered to a real receiver, the page's plain form (303
 * back to the page), the password over the header, the per-file cap on a streamed body, and
 * switching it off. On SQLite, and on PostgreSQL + Redis with TEST_DATABASE_URL and TEST_REDIS_URL.
 */
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guestUpload, isMediaHostError } from "@/sdk/src/index";
import { startReceiver, type Receiver } from "../webhooks/receiver";
import { fixture } from "../support/media";
import { freePort, startTestServer, type TestServer } from "../support/server";
import { serverApp, serverSession, serverUser } from "../support/server-accounts";

describe("guest uploads on the real server", () => {
  let server: TestServer;
  let receiver: Receiver;
  let owner: string;
  let ownerRelay: string;
  beforeAll(async () => {
    receiver = await startReceiver();
    const port = await freePort();
    server = await startTestServer({
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      WEBHOOK_ALLOW_PRIVATE: "127.0.0.1",
      JOB_POLL_MS: "100",
    });
    await serverUser(server, "dropper");
    owner = (await serverApp(server, "dropper", "Desk", { galleryAccess: true })).key;
    ownerRelay = (await serverSession(server, "dropper")).key;
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  const call = async (path: string, init: { method?: string; body?: unknown; key?: string; relay?: boolean } = {}) => {
    const headers: Record<string, string> = { [init.relay ? "relay-key" : "api-key"]: init.key ?? owner };
    if (init.body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(`${server.url}/${init.relay ? "relay" : "api"}${path}`, {
      method: init.method ?? "GET",
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: res.status, body: await res.json() };
  };
  const openFolder = async (name: string, guest: Record<string, unknown>) => {
    const { body } = await call("/folders", { method: "POST", body: { name } });
    const changed = await call(`/folders/${body.folder.id}`, { method: "PATCH", body: { guest_uploads: guest } });
    expect(changed.status).toBe(200);
    return changed.body.folder as { id: string; code: string; guest_uploads: { url: string | null } };
  };
  const pngForm = async () => {
    const form = new FormData();
    form.append("file", new Blob([await readFile(await fixture("png"))], { type: "image/png" }), "guest.png");
    return form;
  };

  it("takes a guest's files without a key into the owner's folder, privately, and tells the owner", async () => {
    await call("/webhooks", { method: "POST", body: { url: receiver.url("/guest"), events: ["folder.guest_upload"] } });
    const folder = await openFolder("Inbox", { enabled: true });
    expect(folder.guest_uploads.url).toBe(`${server.url}/f/${folder.code}/upload`);

    const res = await fetch(`${server.url}/api/guest-uploads/${folder.code}`, { method: "POST", body: await pngForm() });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-limit")).toBe("10");
    const reply = await res.json();
    expect(reply).toMatchObject({ received: [{ index: 0, mime_type: "image/png" }], failed: [] });

    const posts = (await call(`/posts?folder=${folder.id}`)).body.posts;
    expect(posts).toHaveLength(1);
    expect(posts[0].privacy).toBe("private");
    // Private: the bare file link is refused to everyone else.
    expect((await fetch(posts[0].files[0].url.split("?")[0])).status).toBe(403);

    const notes = (await call("/notifications", { key: ownerRelay, relay: true })).body.notifications;
    expect(notes[0]).toMatchObject({ kind: "guest_upload", actor_count: 1, post_code: posts[0].code });

    const [delivered] = await receiver.waitFor("/guest");
    expect(delivered.headers["webhook-event"]).toBe("folder.guest_upload");
    const event = JSON.parse(delivered.body);
    expect(event.data.folder).toEqual({ id: folder.id, code: folder.code, name: "Inbox" });
    expect(event.data.posts.map((p: { code: string }) => p.code)).toEqual([posts[0].code]);
  });

  it("answers the page's plain form with a 303 back to the page, and the page shows the result", async () => {
    const folder = await openFolder("Form drop", { enabled: true, max_file_bytes: 200 });
    const tooBig = await fetch(`${server.url}/api/guest-uploads/${folder.code}/form`, {
      method: "POST",
      body: await pngForm(),
      redirect: "manual",
    });
    expect(tooBig.status).toBe(303);
    expect(tooBig.headers.get("location")).toBe(`${server.url}/f/${folder.code}/upload?error=file_too_large`);

    await call(`/folders/${folder.id}`, { method: "PATCH", body: { guest_uploads: { max_file_bytes: null } } });
    const sent = await fetch(`${server.url}/api/guest-uploads/${folder.code}/form`, {
      method: "POST",
      body: await pngForm(),
      redirect: "manual",
    });
    expect(sent.status).toBe(303);
    const location = sent.headers.get("location") ?? "";
    expect(location).toBe(`${server.url}/f/${folder.code}/upload?sent=1&failed=0`);
    const page = await fetch(location);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Thank you: 1 file uploaded.");
  });

  it("stops a streamed file at the folder's per-file cap, takes the password header, and closes when switched off", async () => {
    const capped = await openFolder("Capped", { enabled: true, max_file_bytes: 1024 * 1024 });
    const big = new FormData();
    big.append("file", new Blob([Buffer.alloc(8 * 1024 * 1024, 7)], { type: "image/png" }), "big.png");
    const over = await fetch(`${server.url}/api/guest-uploads/${capped.code}`, { method: "POST", body: big });
    expect(over.status).toBe(413);
    expect((await over.json()).error.type).toBe("file_too_large");

    // Each password checked is an scrypt on the server: few of them.
    const folder = await openFolder("Locked", { enabled: true, password: "correct horse" });
    const locked = await fetch(`${server.url}/api/guest-uploads/${folder.code}`, { method: "POST", body: await pngForm() });
    expect(locked.status).toBe(403);
    expect(await (await fetch(`${server.url}/f/${folder.code}/upload`)).text()).toContain("password-protected");
    // The SDK's guestUpload (docs/sdk.md): no key, the password as the header.
    const png = new Blob([await readFile(await fixture("png"))], { type: "image/png" });
    const viaSdk = await guestUpload(`${server.url}/api`, folder.code, { blob: png, name: "sdk.png" }, { password: "correct horse" });
    expect(viaSdk.received).toHaveLength(1);
    const refused = await guestUpload(`${server.url}/api`, folder.code, png, { password: "wrong horse" }).catch((e: unknown) => e);
    expect(isMediaHostError(refused) && refused.type).toBe("forbidden");

    await call(`/folders/${folder.id}`, { method: "PATCH", body: { guest_uploads: { enabled: false } } });
    const closed = await fetch(`${server.url}/api/guest-uploads/${folder.code}`, { method: "POST", body: await pngForm() });
    expect(closed.status).toBe(404);
    expect((await fetch(`${server.url}/f/${folder.code}/upload`)).status).toBe(404);
  }, 90_000);
});
