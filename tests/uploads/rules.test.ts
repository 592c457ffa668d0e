/** Upload rules: size limits, quota (also under concurrency), teams, the abuse safeguard, appends, clean failure. */
import { readFile, stat } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { setStorage, storage, type Storage } from "@/lib/storage";
import { teamSubject, userSubject, weekWindow } from "@/lib/usage/window";
import { ListModerator, screensFiles, setModerator, sha256File } from "@/lib/moderation/moderator";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestPost, createTestTeam, createTestUser } from "../support/fixtures";
import { api, relay } from "../support/http";
import { fixture } from "../support/media";
import { form, type Part } from "../support/multipart";

useTestDatabase();
useCounterStore();

const uploadAs = async (who: { apiKey?: string; key?: string }, parts: Part[], headers: Record<string, string> = {}, path = "/upload") =>
  api(path, { method: "POST", key: who.key ?? who.apiKey, rawBody: await form(parts), headers });

const usedBytes = async (subject: string) =>
  Number(
    (await db().usageWindow.findUnique({ where: { subject_windowStart: { subject, windowStart: weekWindow().start } } }))?.bytes ?? 0n,
  );

afterEach(() => {
  delete process.env.PLAN_FREE_UPLOAD_FILE_MAX;
  delete process.env.PLAN_FREE_UPLOAD_REQUEST_MAX;
  setStorage(undefined);
  setModerator(undefined);
});

describe("size limits", () => {
  it("a file over the plan's per-file limit is 413 file_too_large; others in the request still land", async () => {
    const big = await fixture("png");
    const small = await fixture("gif");
    process.env.PLAN_FREE_UPLOAD_FILE_MAX = String((await stat(small)).size + 10);
    const who = await createTestUser();
    const alone = await uploadAs(who, [{ path: big }]);
    expect(alone.status).toBe(413);
    expect(alone.body.error.type).toBe("file_too_large");
    const mixed = await uploadAs(who, [{ path: small }, { path: big }]);
    expect(mixed.status).toBe(200);
    expect(mixed.body.failed).toEqual([{ index: 1, error: expect.objectContaining({ type: "file_too_large" }) }]);
  });

  it("a request over the plan's request limit is 413", async () => {
    process.env.PLAN_FREE_UPLOAD_REQUEST_MAX = "2000";
    const who = await createTestUser();
    const reply = await uploadAs(who, [{ path: await fixture("mp4") }]);
    expect(reply.status).toBe(413);
    expect(reply.body.error.type).toBe("file_too_large");
    expect(await db().post.count({ where: { userId: who.id } })).toBe(0);
  });
});

describe("weekly quota", () => {
  it("is checked before storing: over it, the file fails with quota, used and resets_at", async () => {
    const who = await createTestUser();
    const png = await fixture("pngPlain");
    const first = await uploadAs(who, [{ path: png }]);
    const size = first.body.post.files[0].size;
    await db().user.update({ where: { id: who.id }, data: { quotaOverride: BigInt(size * 2 - 1) } });
    const reply = await uploadAs(who, [{ path: png }, { path: png }], { "post-type": "single" });
    expect(reply.status).toBe(400);
    expect(reply.body.error.type).toBe("upload_failed");
    const second = await uploadAs(who, [{ path: png }]);
    expect(second.status).toBe(400);
    expect(second.body.error).toMatchObject({
      type: "quota_exceeded",
      quota: size * 2 - 1,
      used: size,
      resets_at: weekWindow().end.toISOString(),
    });
    expect(await usedBytes(userSubject(who.id))).toBe(size);
  });

  it("two parallel uploads can never pass the quota together", async () => {
    const who = await createTestUser();
    const png = await fixture("png");
    const probe = await uploadAs(who, [{ path: png }]);
    const size = probe.body.post.files[0].size;
    await db().user.update({ where: { id: who.id }, data: { quotaOverride: BigInt(size * 3 + Math.floor(size / 2)) } });
    const replies = await Promise.all(Array.from({ length: 4 }, () => uploadAs(who, [{ path: png }])));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(2);
    expect(replies.filter((r) => r.status === 400 && r.body.error.type === "quota_exceeded")).toHaveLength(2);
    expect(await usedBytes(userSubject(who.id))).toBe(size * 3);
    expect(await db().post.count({ where: { userId: who.id } })).toBe(3);
  });
});

describe("team keys", () => {
  it("upload private posts into the team gallery, against the team's quota, ignoring post-privacy", async () => {
    const owner = await createTestUser({ plan: "ultra" });
    const team = await createTestTeam(owner.id);
    const reply = await uploadAs({ key: team.key }, [{ path: await fixture("png") }], { "post-privacy": "nonsense" });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.post).toMatchObject({ privacy: "private", team_id: team.id, like_count: null, liked: null });
    expect(reply.body.url).toContain("sig=");
    expect(await usedBytes(teamSubject(team.id))).toBe(reply.body.post.files[0].size);
    expect(await usedBytes(userSubject(owner.id))).toBe(0);
    // Not in the owner's personal gallery.
    const gallery = await api("/posts", { key: owner.apiKey });
    expect(gallery.body.posts.map((p: { code: string }) => p.code)).not.toContain(reply.body.post.code);
  });
});

describe("team posts are private", () => {
  it("whatever post-privacy POST /upload and a resumable upload's metadata ask for", async () => {
    const owner = await createTestUser({ plan: "ultra" });
    const team = await createTestTeam(owner.id);
    const bytes = await readFile(await fixture("png"));
    const viaUpload = await uploadAs({ key: team.key }, [{ path: await fixture("png") }], { "post-privacy": "public" });
    expect(viaUpload.status, viaUpload.text).toBe(200);
    expect(viaUpload.body.post).toMatchObject({ privacy: "private", team_id: team.id });
    // creation-with-upload: the whole file in the creating request publishes it at once.
    for (const asked of ["public", "nonsense"]) {
      const viaTus = await api("/tus", {
        method: "POST",
        key: team.key,
        rawBody: bytes,
        headers: {
          "tus-resumable": "1.0.0",
          "upload-length": String(bytes.length),
          "content-length": String(bytes.length),
          "upload-metadata": `filename ${Buffer.from("shot.png").toString("base64")},post-privacy ${Buffer.from(asked).toString("base64")}`,
          "content-type": "application/offset+octet-stream",
        },
      });
      expect(viaTus.status, viaTus.text).toBe(201);
      const code = viaTus.headers.get("upload-post");
      expect(await db().post.findUnique({ where: { code: code! }, select: { privacy: true, teamId: true } })).toEqual({
        privacy: "private",
        teamId: team.id,
      });
    }
  });
});

describe("abuse safeguard", () => {
  it("more than 8 uploads in one second suspends a personal account", async () => {
    const who = await createTestUser();
    const replies = [];
    for (let i = 0; i < 9; i++) replies.push(await api("/upload", { method: "POST", key: who.apiKey }));
    expect(replies.slice(0, 8).every((r) => r.status === 400)).toBe(true);
    expect(replies[8].status).toBe(403);
    expect(replies[8].body.error.type).toBe("suspended");
    expect((await db().user.findUniqueOrThrow({ where: { id: who.id } })).suspended).toBe(true);
    expect((await api("/users/@me", { key: who.apiKey })).body.error.type).toBe("suspended");
  });

  it("a team key gets 429 instead and the owner stays active", async () => {
    const owner = await createTestUser({ plan: "ultra" });
    const team = await createTestTeam(owner.id);
    const replies = [];
    for (let i = 0; i < 9; i++) replies.push(await api("/upload", { method: "POST", key: team.key }));
    expect(replies[8].status).toBe(429);
    expect(replies[8].body.error.type).toBe("rate_limited");
    expect(Number(replies[8].headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await db().user.findUniqueOrThrow({ where: { id: owner.id } })).suspended).toBe(false);
  });
});

describe("POST /posts/{code}/files", () => {
  it("appends in order, inherits privacy, keeps the 9-file cap", async () => {
    const who = await createTestUser();
    const png = await fixture("pngPlain");
    const first = await uploadAs(who, [{ path: png, name: "one.png" }], { "post-privacy": "unlisted" });
    const code = first.body.post.code;
    const added = await uploadAs(
      who,
      [
        { path: await fixture("gif"), name: "two.gif" },
        { path: png, name: "one.png" },
      ],
      {},
      `/posts/${code}/files`,
    );
    expect(added.status, added.text).toBe(200);
    expect(Object.keys(added.body)).toEqual(["post"]);
    expect(added.body.post.files.map((f: { name: string }) => f.name)).toEqual(["one.png", "two.gif", "one-2.png"]);
    expect(added.body.post.privacy).toBe("unlisted");
    const many = await uploadAs(
      who,
      Array.from({ length: 7 }, () => ({ path: png })),
      {},
      `/posts/${code}/files`,
    );
    expect(many.body.post.file_count).toBe(9);
    expect(many.body.failed.map((f: { index: number }) => f.index)).toEqual([6]);
    const full = await uploadAs(who, [{ path: png }], {}, `/posts/${code}/files`);
    expect(full.status).toBe(400);
  });

  it("needs ownership and an unmoderated post", async () => {
    const owner = await createTestUser();
    const other = await createTestUser();
    const png = await fixture("pngPlain");
    const pub = await createTestPost(owner.id, { privacy: "public" });
    const priv = await createTestPost(owner.id, { privacy: "private" });
    const modded = await createTestPost(owner.id, { moderated: true });
    expect((await uploadAs(other, [{ path: png }], {}, `/posts/${pub.code}/files`)).status).toBe(403);
    expect((await uploadAs(other, [{ path: png }], {}, `/posts/${priv.code}/files`)).status).toBe(404);
    const m = await uploadAs(owner, [{ path: png }], {}, `/posts/${modded.code}/files`);
    expect(m.status).toBe(403);
    expect(m.body.error.type).toBe("moderated");
  });
});

describe("nothing is left half-written", () => {
  it("a storage failure fails that file, releases its quota and leaves no object or row", async () => {
    const real = storage();
    const written: string[] = [];
    let puts = 0;
    // Fault injection: the second object write fails.
    const failing: Storage = {
      ...real,
      kind: real.kind,
      putFile: async (key, path, type) => {
        if (++puts === 2) throw new Error("disk full");
        written.push(key);
        return real.putFile(key, path, type);
      },
      putBuffer: real.putBuffer.bind(real),
      stat: real.stat.bind(real),
      open: real.open.bind(real),
      delete: real.delete.bind(real),
      deletePrefix: real.deletePrefix.bind(real),
    };
    setStorage(failing);
    const who = await createTestUser();
    const png = await fixture("pngPlain");
    const reply = await uploadAs(who, [{ path: png }, { path: png }]);
    expect(reply.status).toBe(200);
    expect(reply.body.failed).toEqual([{ index: 1, error: expect.objectContaining({ type: "internal" }) }]);
    expect(await usedBytes(userSubject(who.id))).toBe(reply.body.post.files[0].size);
    expect(await db().file.count({ where: { post: { userId: who.id } } })).toBe(1);
  });

  it("uploads hash files only for a moderator that screens them (an empty blocklist never flags)", () => {
    expect(new ListModerator(["word"], []).screensFiles).toBe(false);
    expect(new ListModerator([], ["a".repeat(64)]).screensFiles).toBe(true);
    expect(screensFiles({ flagsText: () => false, flagsFile: () => true })).toBe(true); // a custom moderator is asked
  });

  it("a file on the SHA-256 blocklist quarantines the post", async () => {
    const png = await fixture("png");
    setModerator(new ListModerator([], [await sha256File(png)]));
    const who = await createTestUser();
    const other = await createTestUser();
    const reply = await uploadAs(who, [{ path: await fixture("gif") }, { path: png }], { "post-privacy": "public" });
    expect(reply.body.post.moderated).toBe(true);
    const seen = await api(`/posts/${reply.body.post.code}`, { key: other.apiKey });
    expect(seen.body.error.type).toBe("moderated");
  });

  it("works on Relay with the same rules", async () => {
    const who = await createTestUser();
    const reply = await relay("/upload", { method: "POST", key: who.relayKey, rawBody: await form([{ path: await fixture("png") }]) });
    expect(reply.status).toBe(200);
    expect(reply.body.post.privacy).toBe("private");
  });
});
