/**
 * The admin CLI's `report list [--open] [--limit N]` and `report resolve --id ID
 * [--dismiss]`: in-process through runAdmin (like tests/cli/commands.test.ts), plus one
 * real process on a database of its own, for the stdout contract.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { runAdmin } from "@/lib/cli/admin";
import { createDb, db } from "@/lib/db/client";
import { databaseConfig } from "@/lib/db/config";
import { applyMigrations } from "@/lib/db/migrator";
import { reportComment, reportPost, reportUser } from "@/lib/reports/submit";
import { useTestDatabase } from "../support/db";
import { createTestPost, createTestUser } from "../support/fixtures";

type Json = Record<string, unknown>;

async function ok(line: string): Promise<Json> {
  const result = await runAdmin(line.split(" "));
  expect(result.output, JSON.stringify(result.output)).not.toHaveProperty("error");
  expect(result.exitCode).toBe(0);
  return result.output as Json;
}

async function fails(line: string, type: string): Promise<string> {
  const result = await runAdmin(line.split(" "), { log: () => {} });
  expect(result.exitCode).toBe(1);
  expect(result.output).toEqual({ error: { type, message: expect.any(String) } });
  return (result.output.error as { message: string }).message;
}

describe("admin report commands", () => {
  useTestDatabase();

  it("list shows every report newest first with its reporter and target; resolve and dismiss close them", async () => {
    const author = await createTestUser({ username: "Author1" });
    const reporter = await createTestUser({ username: "Reporter1" });
    const { id: postId, code } = await createTestPost(author.id, { title: "Bad post", moderated: false });
    const commentRow = await db().comment.create({ data: { postId, userId: author.id, body: "rude words" } });
    const input = { reporterId: reporter.id, ip: "203.0.113.4" };
    const onPost = await reportPost(code, { ...input, reason: "spam" });
    const onUser = await reportUser(author.id, { ...input, reason: null });
    const onComment = await reportComment(commentRow.id, { ...input, reason: "insult" });
    // Distinct times, so "newest first" is observable whatever the clock's resolution.
    const base = Date.now() - 60_000;
    for (const [i, r] of [onPost, onUser, onComment].entries()) {
      await db().report.update({ where: { id: r.id }, data: { createdAt: new Date(base + i * 1000) } });
    }

    const who = (id: string, username: string) => ({ id, username, suspended: false });
    const listed = await ok("report list");
    expect(listed).toEqual({
      has_more: false,
      reports: [
        {
          id: onComment.id,
          status: "open",
          created_at: new Date(base + 2000).toISOString(),
          reason: "insult",
          ip: "203.0.113.4",
          reporter: who(reporter.id, "Reporter1"),
          target: { type: "comment", id: commentRow.id, body: "rude words", post_code: code, author: who(author.id, "Author1") },
        },
        expect.objectContaining({ id: onUser.id, reason: null, target: { type: "user", user: who(author.id, "Author1") } }),
        expect.objectContaining({
          id: onPost.id,
          reason: "spam",
          target: { type: "post", code, title: "Bad post", moderated: false, author: who(author.id, "Author1") },
        }),
      ],
    });

    expect(await ok(`report resolve --id ${onUser.id}`)).toEqual({ id: onUser.id, status: "resolved" });
    expect(await ok(`report resolve --id ${onPost.id} --dismiss`)).toEqual({ id: onPost.id, status: "dismissed" });
    const open = await ok("report list --open");
    expect((open.reports as Json[]).map((r) => r.id)).toEqual([onComment.id]);
    // Deciding again replaces the decision.
    expect(await ok(`report resolve --id ${onPost.id} --dismiss false`)).toEqual({ id: onPost.id, status: "resolved" });

    const page = await ok("report list --limit 2");
    expect(page.has_more).toBe(true);
    expect((page.reports as Json[]).map((r) => r.id)).toEqual([onComment.id, onUser.id]);
    expect((await ok("report list --open --limit 1")).has_more).toBe(false);
  });

  it("refuses unknown reports, missing and unknown flags and bad limits", async () => {
    await fails("report resolve --id nosuchreport", "not_found");
    expect(await fails("report resolve", "invalid_request")).toContain("--id is required");
    expect(await fails("report resolve --id x --reason y", "invalid_request")).toContain("--reason");
    expect(await fails("report list --limit 0", "invalid_request")).toContain("--limit");
    expect(await fails("report list --limit 1001", "invalid_request")).toContain("--limit");
    expect(await fails("report list --open maybe", "invalid_request")).toContain("--open");
    await fails("report frobnicate", "invalid_request");
  });

  it("help lists both commands", async () => {
    const { commands } = await ok("help");
    expect(commands).toEqual(expect.arrayContaining(["report list [--open] [--limit N]", "report resolve --id ID [--dismiss]"]));
  });
});

describe("admin report commands as a process", () => {
  it("prints the open reports of its configured database as one JSON line", { timeout: 60_000 }, async () => {
    const target = freshDatabase();
    const config = databaseConfig({ ...process.env, DATABASE_URL: target.url });
    const check = createDb(config);
    try {
      await applyMigrations(config);
      const users = await Promise.all(["pia", "quin"].map((u) => check.user.create({ data: { username: u, displayUsername: u } })));
      const report = await check.report.create({
        data: { reporterId: users[0].id, targetType: "user", targetUserId: users[1].id, reason: "spam", ip: "192.0.2.1" },
      });

      const run = await runCli(["report", "list", "--open"], target.url);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.endsWith("\n") && !run.stdout.slice(0, -1).includes("\n"), run.stdout).toBe(true);
      expect(JSON.parse(run.stdout)).toEqual({
        has_more: false,
        reports: [
          {
            id: report.id,
            status: "open",
            created_at: report.createdAt.toISOString(),
            reason: "spam",
            ip: "192.0.2.1",
            reporter: { id: users[0].id, username: "pia", suspended: false },
            target: { type: "user", user: { id: users[1].id, username: "quin", suspended: false } },
          },
        ],
      });
    } finally {
      await check.$disconnect();
      await target.drop();
    }
  });
});

// ───────────── process helpers ─────────────

const root = resolve(__dirname, "../..");

function runCli(args: string[], databaseUrl: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ["scripts/launch.mjs", "admin", ...args], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: databaseUrl },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    child.on("error", fail);
    child.on("close", (code) => done({ code, stdout, stderr }));
  });
}

/** A new SQLite file, or a new schema of TEST_DATABASE_URL's PostgreSQL database. */
function freshDatabase(): { url: string; drop(): Promise<void> } {
  const pgUrl = process.env.TEST_DATABASE_URL;
  if (pgUrl) {
    const schema = `rep_${randomBytes(6).toString("hex")}`;
    const url = new URL(pgUrl);
    url.searchParams.set("schema", schema);
    return {
      url: url.toString(),
      async drop() {
        const client = new pg.Client({ connectionString: pgUrl });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), "mediahost-reports-cli-"));
  return { url: `file:${join(dir, "admin.db")}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}
