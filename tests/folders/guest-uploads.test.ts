/**
 * Guest uploads into a folder (docs/guest-uploads.md), through the real dispatcher: off by
 * default, the owner's settings, the upload into the owner's folder (private, the owner's
 * quota, sniffed), the caps, the password, the per-address limits, the notification and the
 * webhook event, the operator's switch. Over real HTTP: tests/server/guest-uploads.test.ts.
 */
import { stat, writeFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { resetEnv } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { findGuestDrop } from "@/lib/folders/guest";
import { loadFolderPage } from "@/lib/web/folder-page";
import { unlockToken } from "@/lib/web/share-unlock";
import { settleWebhookEvents } from "@/lib/webhooks/events";
import { useCounterStore } from "../support/counters";
import { useTestDatabase } from "../support/db";
import { createTestUser, type TestUser } from "../support/fixtures";
import { api, relay } from "../support/http";
import { fixture, useScratchDir } from "../support/media";
import { form } from "../support/multipart";

useTestDatabase();
const counters = useCounterStore({ perTest: true });
const scratch = useScratchDir();

afterEach(() => {
  delete process.env.GUEST_UPLOADS;
  resetEnv();
});

async function newFolder(owner: TestUser, guest?: Record<string, unknown>) {
  const made = await api("/folders", { method: "POST", key: owner.apiKey, body: { name: `Drop ${Math.random()}` } });
  expect(made.status, made.text).toBe(200);
  if (!guest) return made.body.folder;
  const changed = await api(`/folders/${made.body.folder.id}`, { method: "PATCH", key: owner.apiKey, body: { guest_uploads: guest } });
  expect(changed.status, changed.text).toBe(200);
  return changed.body.folder;
}

const png = async () => form([{ path: await fixture("png"), type: "image/png", name: "from-a-guest.png" }]);
const guestUpload = async (code: string, options: { body?: FormData; headers?: Record<string, string>; ip?: string } = {}) =>
  api(`/guest-uploads/${code}`, { method: "POST", rawBody: options.body ?? (await png()), headers: options.headers, ip: options.ip });

describe("a folder's guest uploads", () => {
  it("are off by default: the folder says so and the endpoint is a 404 with nothing read", async () => {
    const owner = await createTestUser();
    const folder = await newFolder(owner);
    expect(folder.guest_uploads).toEqual({
      enabled: false,
      open: false,
      password_protected: false,
      max_file_bytes: null,
      max_files: null,
      max_bytes: null,
      expires_at: null,
      files_received: 0,
      bytes_received: 0,
      url: null,
    });
    const reply = await guestUpload(folder.code);
    expect(reply.status).toBe(404);
    expect(reply.body.error.type).toBe("not_found");
    expect(await db().post.count({ where: { userId: owner.id } })).toBe(0);
    expect((await guestUpload("nosuchcode")).status).toBe(404);
  });

  it("land private in the owner's folder, on the owner's quota, and tell the owner (notification and webhook)", async () => {
    const owner = await createTestUser();
    await db().webhook.create({
      data: { userId: owner.id, url: "https://hooks.example.com/x", secret: "s", events: "folder.guest_upload,upload", format: "generic" },
    });
    const folder = await newFolder(owner, { enabled: true });
    expect(folder.guest_uploads).toMatchObject({
      enabled: true,
      open: true,
      url: expect.stringMatching(new RegExp(`/f/${folder.code}/upload$`)),
    });

    const reply = await guestUpload(folder.code);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({
      received: [{ index: 0, name: expect.any(String), size: expect.any(Number), mime_type: "image/png" }],
      failed: [],
    });
    expect(reply.text).not.toMatch(/"code"|\/p\//);

    const posts = await db().post.findMany({ where: { userId: owner.id }, include: { folders: true, files: true } });
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({ privacy: "private", appId: null });
    expect(posts[0].folders.map((f) => f.folderId)).toEqual([folder.id]);
    const usage = await api("/usage", { key: owner.apiKey });
    if (usage.status === 200) expect(JSON.stringify(usage.body)).toMatch(/[1-9]/);

    // Guests see nothing of a private folder: its page stays a 404; a public one links to the upload page.
    expect((await loadFolderPage(folder.code, undefined)).kind).toBe("not_found");
    await api(`/folders/${folder.id}`, { method: "PATCH", key: owner.apiKey, body: { privacy: "public" } });
    expect(await loadFolderPage(folder.code, undefined)).toMatchObject({ kind: "folder", posts: [], guestUploads: true });

    const after = (await api(`/folders/${folder.id}`, { key: owner.apiKey })).body.folder;
    expect(after.post_count).toBe(1);
    // The caps count the bytes guests sent (before metadata is stripped), not what is stored.
    expect(after.guest_uploads).toMatchObject({ files_received: 1, bytes_received: (await stat(await fixture("png"))).size });

    // A second upload merges into the same unread entry.
    expect((await guestUpload(folder.code)).status).toBe(200);
    const notes = await relay("/notifications", { key: owner.relayKey });
    expect(notes.status, notes.text).toBe(200);
    expect(notes.body.notifications).toHaveLength(1);
    expect(notes.body.notifications[0]).toMatchObject({ kind: "guest_upload", actors: [], actor_count: 2, post_code: expect.any(String) });
    expect((await relay("/notifications/unread-count", { key: owner.relayKey })).body.unread_count).toBe(1);

    await settleWebhookEvents();
    const jobs = await db().job.findMany();
    const events = jobs.map((j) => JSON.parse(j.payload) as { event: string; body: string });
    const guestEvents = events.filter((e) => e.event === "folder.guest_upload");
    expect(guestEvents).toHaveLength(2);
    const body = JSON.parse(guestEvents[0].body);
    expect(body.data.folder).toEqual({ id: folder.id, code: folder.code, name: folder.name });
    expect(body.data.posts[0]).toMatchObject({ privacy: "private" });
    expect(events.filter((e) => e.event === "upload")).toHaveLength(2);
  });

  it("stop at once when turned off, and when the operator turns the feature off", async () => {
    const owner = await createTestUser();
    const folder = await newFolder(owner, { enabled: true });
    expect((await guestUpload(folder.code)).status).toBe(200);
    await api(`/folders/${folder.id}`, { method: "PATCH", key: owner.apiKey, body: { guest_uploads: { enabled: false } } });
    expect((await guestUpload(folder.code)).status).toBe(404);

    await api(`/folders/${folder.id}`, { method: "PATCH", key: owner.apiKey, body: { guest_uploads: { enabled: true } } });
    process.env.GUEST_UPLOADS = "off";
    resetEnv();
    expect((await guestUpload(folder.code)).status).toBe(404);
    expect((await api(`/folders/${folder.id}`, { key: owner.apiKey })).body.folder.guest_uploads).toMatchObject({
      enabled: true,
      open: false,
      url: null,
    });
    const other = await newFolder(owner);
    const refused = await api(`/folders/${other.id}`, { method: "PATCH", key: owner.apiKey, body: { guest_uploads: { enabled: true } } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.type).toBe("forbidden");
  });

  it("switched on again count from zero; the owner's other settings are checked", async () => {
    const owner = await createTestUser();
    const folder = await newFolder(owner, { enabled: true, max_files: 1 });
    expect((await guestUpload(folder.code)).status).toBe(200);
    const full = await guestUpload(folder.code);
    expect(full.status).toBe(403);
    expect(full.body.error.type).toBe("quota_exceeded");
    await api(`/folders/${folder.id}`, { method: "PATCH", key: owner.apiKey, body: { guest_uploads: { enabled: false } } });
    await api(`/folders/${folder.id}`, { method: "PATCH", key: owner.apiKey, body: { guest_uploads: { enabled: true } } });
    expect((await guestUpload(folder.code)).status).toBe(200);

    for (const guest of [
      { password: "short" },
      { max_files: 0 },
      { max_bytes: -1 },
      { max_file_bytes: 1.5 },
      { expires_at: "2001-01-01T00:00:00Z" },
      { expires_at: "soon" },
      { enabled: "yes" },
      "on",
    ]) {
      const reply = await api(`/folders/${folder.id}`, { method: "PATCH", key: owner.apiKey, body: { guest_uploads: guest } });
      expect(reply.status, JSON.stringify(guest)).toBe(400);
      expect(reply.body.error.type).toBe("invalid_request");
    }
    const other = await createTestUser();
    expect(
      (await api(`/folders/${folder.id}`, { method: "PATCH", key: other.apiKey, body: { guest_uploads: { enabled: false } } })).status,
    ).toBe(404);
  });

  it("let concurrent guests never pass the files cap together", async () => {
    const owner = await createTestUser();
    const folder = await newFolder(owner, { enabled: true, max_files: 2 });
    const bodies = await Promise.all([png(), png(), png(), png()]);
    const replies = await Promise.all(bodies.map((body, i) => guestUpload(folder.code, { body, ip: `192.0.2.${10 + i}` })));
    expect(replies.map((r) => r.status).sort()).toEqual([200, 200, 403, 403]);
    expect(await db().post.count({ where: { userId: owner.id } })).toBe(2);
    expect((await api(`/folders/${folder.id}`, { key: owner.apiKey })).body.folder.guest_uploads.files_received).toBe(2);
  });

  it("hold the per-file size cap, the total bytes cap and the expiry", async () => {
    const owner = await createTestUser();
    const small = await newFolder(owner, { enabled: true, max_file_bytes: 100 });
    const tooBig = await guestUpload(small.code);
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.error.type).toBe("file_too_large");
    expect((await api(`/folders/${small.id}`, { key: owner.apiKey })).body.folder.guest_uploads.files_received).toBe(0);

    const capped = await newFolder(owner, { enabled: true, max_bytes: 100 });
    expect((await guestUpload(capped.code)).status).toBe(413);

    const expiring = await newFolder(owner, { enabled: true, expires_at: "1h" });
    expect(expiring.guest_uploads.expires_at).not.toBeNull();
    expect((await guestUpload(expiring.code)).status).toBe(200);
    await db().folder.update({ where: { id: expiring.id }, data: { guestExpiresAt: new Date(Date.now() - 1000) } });
    expect((await guestUpload(expiring.code)).status).toBe(404);
  });

  it("go through the owner's quota and the same type sniffing as every upload", async () => {
    const owner = await createTestUser();
    const folder = await newFolder(owner, { enabled: true });
    const text = scratch("note.png");
    await writeFile(text, "not an image at all, whatever its name says\n");
    const refused = await guestUpload(folder.code, { body: await form([{ path: text, type: "image/png" }]) });
    expect(refused.status).toBe(400);
    expect(refused.body.error.type).toBe("unsupported_type");

    await db().user.update({ where: { id: owner.id }, data: { quotaOverride: 10n } });
    const over = await guestUpload(folder.code);
    expect(over.body.error?.type, over.text).toBe("quota_exceeded");
    expect((await api(`/folders/${folder.id}`, { key: owner.apiKey })).body.folder.guest_uploads.files_received).toBe(0);
    expect(await db().post.count({ where: { userId: owner.id } })).toBe(0);
  });

  it("behind a password take the unlock cookie or the guest-password header, with tries limited", async () => {
    const owner = await createTestUser();
    const folder = await newFolder(owner, { enabled: true, password: "open sesame" });
    expect(folder.guest_uploads.password_protected).toBe(true);
    expect(JSON.stringify(folder)).not.toContain("sesame");

    const none = await guestUpload(folder.code);
    expect(none.status).toBe(403);
    expect(none.body.error.type).toBe("forbidden");
    expect((await guestUpload(folder.code, { headers: { "guest-password": "wrong one" } })).status).toBe(403);
    expect((await guestUpload(folder.code, { headers: { "guest-password": "open%20sesame" } })).status).toBe(200);

    const drop = await findGuestDrop(folder.code);
    const token = unlockToken(folder.code, drop?.passwordHash ?? "", undefined, "guest-upload");
    expect((await guestUpload(folder.code, { headers: { cookie: `mh_guest_${folder.code}=${token}` } })).status).toBe(200);
    // A share page's unlock token for the same code opens nothing here.
    const shareToken = unlockToken(folder.code, drop?.passwordHash ?? "");
    expect((await guestUpload(folder.code, { headers: { cookie: `mh_guest_${folder.code}=${shareToken}` } })).status).toBe(403);

    // 10 tries per address per 10 minutes, right or wrong: 2 made above, 8 more counted here
    // (each real try runs scrypt), as lib/web/share-guesses.ts counts them.
    for (let i = 0; i < 8; i++) await counters().increment(`guest_password:${folder.code}:198.51.100.7`, 600);
    const limited = await guestUpload(folder.code, { headers: { "guest-password": "open sesame" } });
    expect(limited.status).toBe(429);
    expect((await guestUpload(folder.code, { headers: { "guest-password": "open sesame" }, ip: "203.0.113.9" })).status).toBe(200);
  });

  it("are limited per client address: the guest_upload bucket and the burst safeguard", async () => {
    const owner = await createTestUser();
    const locked = await newFolder(owner, { enabled: true, password: "a long password" });
    for (let i = 0; i < 10; i++) {
      const reply = await api(`/guest-uploads/${locked.code}`, { method: "POST", ip: "192.0.2.1" });
      expect(reply.status).toBe(403);
      expect(reply.headers.get("x-ratelimit-limit")).toBe("10");
    }
    const over = await api(`/guest-uploads/${locked.code}`, { method: "POST", ip: "192.0.2.1" });
    expect(over.status).toBe(429);
    expect(over.headers.get("retry-after")).toBeTruthy();
    expect((await api(`/guest-uploads/${locked.code}`, { method: "POST", ip: "192.0.2.2" })).status).toBe(403);

    // More than 8 uploads within a second from one address: 429, and no account is suspended.
    const open = await newFolder(owner, { enabled: true });
    const replies = await Promise.all(
      Array.from({ length: 9 }, () => api(`/guest-uploads/${open.code}`, { method: "POST", ip: "192.0.2.3", body: {} })),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([...Array(8).fill(400), 429]);
    expect((await db().user.findUniqueOrThrow({ where: { id: owner.id } })).suspended).toBe(false);
  });
});
