/** `admin import dir` (docs/admin-cli.md): files become posts as if uploaded; a second run skips them by content. */
import { copyFile, mkdir, mkdtemp, rm, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdmin } from "@/lib/cli/admin";
import { db } from "@/lib/db/client";
import { useCounterStore } from "../support/counters";
import { useTestDatabase } from "../support/db";
import { createTestUser } from "../support/fixtures";
import { fixture } from "../support/media";

useTestDatabase();
useCounterStore();

type Summary = {
  dry_run: boolean;
  imported: { path: string; code: string }[];
  would_import?: string[];
  skipped: { path: string; reason: string }[];
};

let dir: string;
const OLD = new Date("2021-05-06T07:08:09Z");

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "import-dir-"));
  await mkdir(join(dir, "sub"));
  await copyFile(await fixture("png"), join(dir, "a.png"));
  await copyFile(await fixture("jpegOriented"), join(dir, "sub", "b.jpg"));
  // The same bytes as a.png under another name: imported once.
  await copyFile(await fixture("png"), join(dir, "sub", "copy-of-a.png"));
  await writeFile(join(dir, "notes.txt"), "plain text is not a media type with the default settings\n");
  await symlink(join(dir, "a.png"), join(dir, "link.png"));
  await utimes(join(dir, "a.png"), OLD, OLD);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function run(...argv: string[]): Promise<{ exitCode: number; output: Summary & { error?: { type: string; message: string } } }> {
  const result = await runAdmin(argv, { log: () => {} });
  return result as { exitCode: number; output: Summary & { error?: { type: string; message: string } } };
}

describe("import dir", () => {
  it("imports every media file as its own post with the upload's rules, mtime as the time, into a folder; skips the rest with the reason", async () => {
    const user = await createTestUser({ plan: "ultra" });
    const dry = await run("import", "dir", "--user", user.username, dir, "--dry-run");
    expect(dry.exitCode, JSON.stringify(dry.output)).toBe(0);
    // The dry run judges the type as the real run does: the text file is not among them.
    expect(dry.output.would_import).toEqual(["a.png", "sub/b.jpg"]);
    expect(dry.output.skipped.find((s) => s.path === "notes.txt")?.reason).toMatch(/^unsupported_type: /);
    expect(dry.output.imported).toEqual([]);
    expect(await db().post.count({ where: { userId: user.id } })).toBe(0);
    expect(await db().folder.count({ where: { userId: user.id } })).toBe(0);

    const out = await run("import", "dir", "--user", user.username, dir, "--privacy", "public", "--folder", "Old photos");
    expect(out.exitCode, JSON.stringify(out.output)).toBe(0);
    expect(out.output.imported.map((i) => i.path)).toEqual(["a.png", "sub/b.jpg"]);
    const reasons = Object.fromEntries(out.output.skipped.map((s) => [s.path, s.reason]));
    expect(reasons["link.png"]).toMatch(/symbolic link/);
    expect(reasons["notes.txt"]).toMatch(/^unsupported_type: /);
    expect(reasons["sub/copy-of-a.png"]).toMatch(/already imported/);

    const a = await db().post.findUniqueOrThrow({ where: { code: out.output.imported[0].code }, include: { files: true, folders: true } });
    expect(a).toMatchObject({ userId: user.id, privacy: "public", teamId: null });
    expect(a.createdAt.toISOString()).toBe(OLD.toISOString());
    expect(a.files[0]).toMatchObject({ name: "a.png", mimeType: "image/png", width: 64, height: 48 });
    const folder = await db().folder.findFirstOrThrow({ where: { userId: user.id } });
    expect(folder).toMatchObject({ name: "Old photos", privacy: "private" });
    expect(await db().folderPost.count({ where: { folderId: folder.id } })).toBe(2);
    const b = await db().post.findUniqueOrThrow({ where: { code: out.output.imported[1].code }, include: { files: true } });
    expect(b.files[0].mimeType).toBe("image/jpeg");
    expect((await db().user.findUniqueOrThrow({ where: { id: user.id } })).uploadCount).toBe(2);

    // A second run imports nothing: the same content is skipped.
    const again = await run("import", "dir", "--user", user.username, dir);
    expect(again.output.imported).toEqual([]);
    expect(again.output.skipped.filter((s) => /already imported/.test(s.reason)).map((s) => s.path)).toEqual(
      expect.arrayContaining(["a.png", "sub/b.jpg", "sub/copy-of-a.png"]),
    );
    expect(await db().post.count({ where: { userId: user.id } })).toBe(2);

    // Deleting an imported post allows importing it again.
    await db().post.delete({ where: { id: a.id } });
    const third = await run("import", "dir", "--user", user.username, dir);
    expect(third.output.imported.map((i) => i.path)).toEqual(["a.png"]);
  });

  it("counts against the weekly quota unless --ignore-quota", async () => {
    const user = await createTestUser({ plan: "free" });
    await db().user.update({ where: { id: user.id }, data: { quotaOverride: 10n } });
    const refused = await run("import", "dir", "--user", user.username, dir);
    expect(refused.output.imported).toEqual([]);
    expect(refused.output.skipped.find((s) => s.path === "a.png")?.reason).toMatch(/^quota_exceeded: /);
    const lifted = await run("import", "dir", "--user", user.username, dir, "--ignore-quota");
    expect(lifted.output.imported.map((i) => i.path)).toEqual(["a.png", "sub/b.jpg"]);
  });

  it("refuses a missing directory, an unknown user, a suspended one, bad flags and a second PATH", async () => {
    const user = await createTestUser();
    expect((await run("import", "dir", "--user", user.username, join(dir, "nope"))).output.error?.type).toBe("invalid_request");
    expect((await run("import", "dir", "--user", "ghost-user", dir)).output.error?.type).toBe("not_found");
    expect((await run("import", "dir", "--user", user.username)).output.error?.message).toMatch(/--path is required/);
    expect((await run("import", "dir", "--user", user.username, dir, "--privacy", "secret")).output.error?.message).toMatch(/--privacy/);
    expect((await run("import", "dir", "--user", user.username, dir, "other")).output.error?.message).toMatch(
      /Unexpected argument 'other'/,
    );
    // Other commands still refuse bare words.
    expect((await run("user", "plan", "--user", user.username, "--plan", "plus", "stray")).output.error?.message).toMatch(
      /Unexpected argument/,
    );
    const suspended = await createTestUser({ suspended: true });
    expect((await run("import", "dir", "--user", suspended.username, dir)).output.error?.type).toBe("suspended");
  });
});
