/** Folders (docs/folders.md): the API, the upload's folder header, batch add/remove, GET /posts?folder, /f/{code}, cascades. */
import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { loadFolderPage } from "@/lib/web/folder-page";
import { useCounterStore } from "../support/counters";
import { useTestDatabase } from "../support/db";
import { createTestPost, createTestTeam, createTestUser } from "../support/fixtures";
import { api, relay } from "../support/http";
import { fixture } from "../support/media";
import { form } from "../support/multipart";

useTestDatabase();
useCounterStore({ perTest: true });

const newFolder = async (key: string, body: unknown) => api("/folders", { method: "POST", key, body });
const batch = (key: string, body: unknown) => api("/posts/batch", { method: "POST", key, body });
const upload = async (key: string, headers: Record<string, string> = {}) =>
  api("/upload", { method: "POST", key, rawBody: await form([{ path: await fixture("png"), type: "image/png" }]), headers });
const memberships = (folderId: string) => db().folderPost.count({ where: { folderId } });

describe("folder endpoints", () => {
  it("creates, lists by name, renames, makes public and deletes a folder; names are unique in any case", async () => {
    const user = await createTestUser();
    const made = await newFolder(user.apiKey, { name: "  Screenshots " });
    expect(made.status, made.text).toBe(200);
    const folder = made.body.folder;
    expect(folder).toMatchObject({ name: "Screenshots", privacy: "private", post_count: 0, url: null });
    expect(folder.code).toMatch(/^[A-Za-z0-9]{10}$/);
    expect((await newFolder(user.apiKey, { name: "screenshots" })).status).toBe(400);
    await newFolder(user.apiKey, { name: "Art", privacy: "public" });
    const list = await api("/folders", { key: user.apiKey });
    expect(list.body.folders.map((f: { name: string }) => f.name)).toEqual(["Art", "Screenshots"]);

    const renamed = await api(`/folders/${folder.id}`, { method: "PATCH", key: user.apiKey, body: { name: "Shots", privacy: "public" } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.folder).toMatchObject({
      name: "Shots",
      privacy: "public",
      url: expect.stringMatching(new RegExp(`/f/${folder.code}$`)),
    });
    expect((await api(`/folders/${folder.id}`, { method: "PATCH", key: user.apiKey, body: { name: "art" } })).status).toBe(400);
    expect((await api(`/folders/${folder.id}`, { method: "PATCH", key: user.apiKey, body: {} })).status).toBe(400);
    expect((await api(`/folders/${folder.id}`, { key: user.apiKey })).body.folder.name).toBe("Shots");

    expect((await api(`/folders/${folder.id}`, { method: "DELETE", key: user.apiKey })).body).toEqual({ id: folder.id, deleted: true });
    expect((await api(`/folders/${folder.id}`, { key: user.apiKey })).status).toBe(404);
  });

  it("refuses bad names and privacies", async () => {
    const user = await createTestUser();
    for (const body of [
      { name: "" },
      { name: "   " },
      { name: "a".repeat(65) },
      { name: "two\nlines" },
      { name: "x", privacy: "unlisted" },
      {},
    ]) {
      const reply = await newFolder(user.apiKey, body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.error.type).toBe("invalid_request");
    }
    expect((await newFolder(user.apiKey, { name: "a".repeat(64) })).status).toBe(200);
  });

  it("someone else's folder is not found; app keys need gallery access; team keys get 401", async () => {
    const user = await createTestUser();
    const other = await createTestUser();
    const { folder } = (await newFolder(user.apiKey, { name: "Mine" })).body;
    expect((await api(`/folders/${folder.id}`, { key: other.apiKey })).status).toBe(404);
    expect((await api(`/folders/${folder.id}`, { method: "DELETE", key: other.apiKey })).status).toBe(404);
    expect((await api("/folders", { key: user.uploadOnlyKey })).status).toBe(403);
    expect((await newFolder(user.uploadOnlyKey, { name: "x" })).status).toBe(403);
    expect((await relay("/folders", { key: user.relayKey })).body.folders).toHaveLength(1);
    const team = await createTestTeam(user.id);
    expect((await api("/folders", { key: team.key })).status).toBe(401);
  });
});

describe("POST /upload with a folder header", () => {
  it("files the post into the folder named (created private when missing, found in any case) or given by id", async () => {
    const user = await createTestUser({ plan: "ultra" });
    const first = await upload(user.uploadOnlyKey, { folder: "Screens" });
    expect(first.status, first.text).toBe(200);
    const folder = await db().folder.findFirstOrThrow({ where: { userId: user.id } });
    expect(folder).toMatchObject({ name: "Screens", privacy: "private" });
    expect(await upload(user.apiKey, { folder: "screens" })).toMatchObject({ status: 200 });
    expect(await upload(user.apiKey, { folder: folder.id })).toMatchObject({ status: 200 });
    expect(await db().folder.count({ where: { userId: user.id } })).toBe(1);
    expect(await memberships(folder.id)).toBe(3);
    // A name outside ASCII travels percent-encoded.
    expect(await upload(user.apiKey, { folder: encodeURIComponent("Größe 📁") })).toMatchObject({ status: 200 });
    expect((await db().folder.findMany({ where: { userId: user.id } })).map((f) => f.name).sort()).toEqual(["Größe 📁", "Screens"]);
  });

  it("a bad folder name is 400 naming the header, before anything is stored; no header or an empty one is today's upload", async () => {
    const user = await createTestUser({ plan: "ultra" });
    const bad = await upload(user.apiKey, { folder: "x".repeat(65) });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^Header folder/);
    expect(await db().post.count({ where: { userId: user.id } })).toBe(0);
    expect(await upload(user.apiKey, { folder: "  ", "x-unknown-header": "1" })).toMatchObject({ status: 200 });
    expect(await db().folder.count({ where: { userId: user.id } })).toBe(0);
  });

  it("a team key's folder header is ignored, like its post-privacy", async () => {
    const owner = await createTestUser({ plan: "ultra" });
    const team = await createTestTeam(owner.id);
    expect(await upload(team.key, { folder: "Team stuff" })).toMatchObject({ status: 200 });
    expect(await db().folder.count({ where: { userId: owner.id } })).toBe(0);
  });
});

describe("POST /posts/batch folder_add and folder_remove", () => {
  it("adds and removes the caller's posts, each alone; a post can be in several folders; twice is once", async () => {
    const user = await createTestUser();
    const other = await createTestUser();
    const a = (await newFolder(user.apiKey, { name: "A" })).body.folder;
    const b = (await newFolder(user.apiKey, { name: "B" })).body.folder;
    const mine = await createTestPost(user.id, { privacy: "private" });
    const mine2 = await createTestPost(user.id);
    const theirs = await createTestPost(other.id, { privacy: "public" });
    const team = await createTestTeam(user.id);
    const teamPost = await createTestPost(user.id, { teamId: team.id });

    const added = await batch(user.apiKey, {
      action: "folder_add",
      folder: a.id,
      codes: [mine.code, theirs.code, mine2.code, teamPost.code],
    });
    expect(added.status, added.text).toBe(200);
    expect(added.body.succeeded).toEqual([
      { index: 0, code: mine.code },
      { index: 2, code: mine2.code },
    ]);
    expect(added.body.failed.map((f: { index: number; error: { type: string } }) => [f.index, f.error.type])).toEqual([
      [1, "forbidden"],
      [3, "forbidden"],
    ]);
    expect((await batch(user.apiKey, { action: "folder_add", folder: a.id, codes: [mine.code] })).body.failed).toEqual([]);
    await batch(user.apiKey, { action: "folder_add", folder: b.id, codes: [mine.code] });
    expect(await memberships(a.id)).toBe(2);
    expect(await memberships(b.id)).toBe(1);

    const removed = await batch(user.apiKey, { action: "folder_remove", folder: a.id, codes: [mine.code, theirs.code] });
    expect(removed.body.succeeded).toEqual([{ index: 0, code: mine.code }]);
    expect(removed.body.failed[0]).toMatchObject({ index: 1, error: { type: "not_found" } });
    expect(await memberships(a.id)).toBe(1);
    expect(await memberships(b.id)).toBe(1);
  });

  it("someone else's or an unknown folder is a 404 for the whole request; a team key has no folders", async () => {
    const user = await createTestUser();
    const other = await createTestUser();
    const theirs = (await newFolder(other.apiKey, { name: "Theirs" })).body.folder;
    const post = await createTestPost(user.id);
    expect((await batch(user.apiKey, { action: "folder_add", folder: theirs.id, codes: [post.code] })).status).toBe(404);
    expect((await batch(user.apiKey, { action: "folder_add", folder: "nope", codes: [post.code] })).status).toBe(404);
    expect((await batch(user.apiKey, { action: "folder_add", codes: [post.code] })).status).toBe(400);
    const team = await createTestTeam(user.id);
    expect((await batch(team.key, { action: "folder_add", folder: theirs.id, codes: [post.code] })).status).toBe(404);
    expect(await memberships(theirs.id)).toBe(0);
  });
});

describe("GET /posts?folder", () => {
  it("lists only the folder's posts, paged, with cursors bound to the folder", async () => {
    const user = await createTestUser();
    const folder = (await newFolder(user.apiKey, { name: "F" })).body.folder;
    const inside = [];
    for (let i = 0; i < 3; i++) inside.push(await createTestPost(user.id, { createdAt: new Date(Date.UTC(2026, 0, 1 + i)) }));
    await createTestPost(user.id);
    await batch(user.apiKey, { action: "folder_add", folder: folder.id, codes: inside.map((p) => p.code) });
    const first = await api(`/posts?folder=${folder.id}&limit=2`, { key: user.apiKey });
    expect(first.status, first.text).toBe(200);
    expect(first.body.posts.map((p: { code: string }) => p.code)).toEqual([inside[2].code, inside[1].code]);
    const second = await api(`/posts?folder=${folder.id}&limit=2&cursor=${first.body.next_cursor}`, { key: user.apiKey });
    expect(second.body.posts.map((p: { code: string }) => p.code)).toEqual([inside[0].code]);
    expect((await api(`/posts?limit=2&cursor=${first.body.next_cursor}`, { key: user.apiKey })).status).toBe(400);
    expect((await api("/posts", { key: user.apiKey })).body.posts).toHaveLength(4);
  });
});

describe("cascades", () => {
  it("deleting a folder keeps its posts; deleting a post or the user removes memberships and folders", async () => {
    const user = await createTestUser();
    const folder = (await newFolder(user.apiKey, { name: "F" })).body.folder;
    const [p1, p2] = [await createTestPost(user.id), await createTestPost(user.id)];
    await batch(user.apiKey, { action: "folder_add", folder: folder.id, codes: [p1.code, p2.code] });
    expect((await api(`/posts/${p1.code}`, { method: "DELETE", key: user.apiKey })).status).toBe(200);
    expect(await memberships(folder.id)).toBe(1);
    await api(`/folders/${folder.id}`, { method: "DELETE", key: user.apiKey });
    expect(await db().post.count({ where: { code: p2.code } })).toBe(1);
    expect(await db().folderPost.count({ where: { folderId: folder.id } })).toBe(0);

    const again = (await newFolder(user.apiKey, { name: "G" })).body.folder;
    await batch(user.apiKey, { action: "folder_add", folder: again.id, codes: [p2.code] });
    await db().user.delete({ where: { id: user.id } });
    expect(await db().folder.count({ where: { id: again.id } })).toBe(0);
    expect(await db().folderPost.count({ where: { folderId: again.id } })).toBe(0);
  });
});

describe("/f/{code}", () => {
  it("shows a public folder's public and unlisted posts, never private, moderated, drafts, expired or gated ones", async () => {
    const user = await createTestUser();
    const folder = (await newFolder(user.apiKey, { name: "Holiday", privacy: "public" })).body.folder;
    const shown = [await createTestPost(user.id, { privacy: "public" }), await createTestPost(user.id, { privacy: "unlisted" })];
    const hidden = [
      await createTestPost(user.id, { privacy: "private" }),
      await createTestPost(user.id, { privacy: "public", moderated: true }),
      await createTestPost(user.id, { privacy: "public", draft: true }),
      await createTestPost(user.id, { privacy: "public" }),
      await createTestPost(user.id, { privacy: "public" }),
      await createTestPost(user.id, { privacy: "public" }),
    ];
    await db().post.update({ where: { id: hidden[3].id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await db().post.update({ where: { id: hidden[4].id }, data: { maxViews: 5 } });
    await db().post.update({ where: { id: hidden[5].id }, data: { passwordHash: "x" } });
    const all = [...shown, ...hidden];
    await db().folderPost.createMany({ data: all.map((p) => ({ folderId: folder.id, postId: p.id })) });

    const page = await loadFolderPage(folder.code, undefined);
    expect(page.kind).toBe("folder");
    if (page.kind !== "folder") return;
    expect(page.name).toBe("Holiday");
    expect(page.posts.map((p) => p.code).sort()).toEqual(shown.map((p) => p.code).sort());

    await api(`/folders/${folder.id}`, { method: "PATCH", key: user.apiKey, body: { privacy: "private" } });
    expect((await loadFolderPage(folder.code, undefined)).kind).toBe("not_found");
    await api(`/folders/${folder.id}`, { method: "PATCH", key: user.apiKey, body: { privacy: "public" } });
    await db().user.update({ where: { id: user.id }, data: { suspended: true } });
    expect((await loadFolderPage(folder.code, undefined)).kind).toBe("not_found");
    expect((await loadFolderPage("nope", undefined)).kind).toBe("not_found");
  });

  it("pages 24 at a time, newest first", async () => {
    const user = await createTestUser();
    const folder = (await newFolder(user.apiKey, { name: "Many", privacy: "public" })).body.folder;
    const posts = [];
    for (let i = 0; i < 26; i++) posts.push(await createTestPost(user.id, { createdAt: new Date(Date.UTC(2026, 0, 1, 0, i)) }));
    await db().folderPost.createMany({ data: posts.map((p) => ({ folderId: folder.id, postId: p.id })) });
    const first = await loadFolderPage(folder.code, undefined);
    if (first.kind !== "folder") throw new Error("not found");
    expect(first.posts).toHaveLength(24);
    expect(first.posts[0].code).toBe(posts[25].code);
    const second = await loadFolderPage(folder.code, first.nextCursor ?? undefined);
    if (second.kind !== "folder") throw new Error("not found");
    expect(second.posts.map((p) => p.code)).toEqual([posts[1].code, posts[0].code]);
    expect(second.nextCursor).toBeNull();
  });
});
