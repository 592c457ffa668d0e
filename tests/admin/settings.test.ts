/**
 * Operator settings kept in the database (issue 38 §2, docs/configuration.md "Settings in
 * the console"): stored, applied to env(), audited with secrets redacted, refused naming the
 * setting, locked by the environment; and the admin CLI's `settings`, `setup-code` and
 * `user list`. On the test database (SQLite, or PostgreSQL with TEST_DATABASE_URL).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { setupCode } from "@/lib/accounts/setup";
import { listAudit } from "@/lib/audit/log";
import { runAdmin } from "@/lib/cli/admin";
import { env, resetEnv } from "@/lib/config/env";
import { applyStoredValues, settingsSource } from "@/lib/config/stored-settings";
import { moderator } from "@/lib/moderation/moderator";
import { planLimits } from "@/lib/plans";
import { changeSetting, listSettings } from "@/lib/settings/change";
import { refreshStoredSettings } from "@/lib/settings/stored";
import { createUser, setPlan, suspendUser } from "@/lib/users/accounts";
import { useTestDatabase } from "../support/db";
import { expectDomainError } from "../cli/helpers";

const operator = { source: "web" as const, userId: null, name: "root" };

async function cli(...argv: string[]): Promise<{ exitCode: number; output: Record<string, unknown> }> {
  return runAdmin(argv, { log: () => {} });
}

describe("settings kept in the database", () => {
  const testDb = useTestDatabase();
  const saved = { ...process.env };
  afterEach(async () => {
    for (const name of ["UPLOAD_FILES", "SITE_NAME", "SMTP_URL", "REGISTRATION"]) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
    await testDb().db.setting.deleteMany();
    applyStoredValues({});
    resetEnv();
  });

  it("a stored value applies to env() at once, and going back to the default removes its row", async () => {
    expect(env().UPLOAD_FILES).toBe("media");
    await changeSetting(operator, "UPLOAD_FILES", " Text , media ");
    expect(env().UPLOAD_FILES).toBe("media,text");
    expect(await testDb().db.setting.findUnique({ where: { name: "UPLOAD_FILES" } })).toMatchObject({
      value: "media,text",
      updatedBy: "root",
    });
    await changeSetting(operator, "UPLOAD_FILES", "");
    expect(env().UPLOAD_FILES).toBe("media");
    expect(await testDb().db.setting.count()).toBe(0);
  });

  it("plan limits and the moderation words follow the stored values", async () => {
    await changeSetting(operator, "PLAN_FREE_WEEKLY_QUOTA", "7GB");
    expect(planLimits("free", settingsSource()).weeklyQuotaBytes).toBe(7 * 1024 ** 3);
    await changeSetting(operator, "MODERATION_WORDS", " spoiler ,  ");
    expect(moderator().flagsText("big spoiler here")).toBe(true);
  });

  it("refuses a bad value with a message naming the setting, and stores nothing", async () => {
    for (const [name, value] of [
      ["UPLOAD_FILES", "everything"],
      ["REGISTRATION", "maybe"],
      ["EMBED_COLOR", "blue"],
      ["PLAN_PLUS_UPLOAD_FILE_MAX", "lots"],
      ["SHORT_URL", "ftp://go.example"],
      ["SMTP_URL", "mail.example.com"],
      ["SESSION_IDLE_DAYS", "-1"],
    ]) {
      const error = await expectDomainError(changeSetting(operator, name, value), "invalid_request");
      expect(error.message).toContain(`Invalid setting ${name}`);
    }
    expect(await testDb().db.setting.count()).toBe(0);
    await expectDomainError(changeSetting(operator, "NOT_A_SETTING", "x"), "not_found");
  });

  it("a value the environment sets wins, shows locked with its source, and cannot be changed here", async () => {
    process.env.SITE_NAME = "From the environment";
    resetEnv();
    const error = await expectDomainError(changeSetting(operator, "SITE_NAME", "Console"), "forbidden");
    expect(error.message).toContain("set in the service's environment");
    const site = (await listSettings()).find((s) => s.declaration.name === "SITE_NAME");
    expect(site).toMatchObject({ source: "environment", locked: true, value: "From the environment" });
    // Start-up settings are shown, never stored.
    await expectDomainError(changeSetting(operator, "DATABASE_URL", "postgresql://x"), "forbidden");
    // A row left from before the variable was set does not override it either.
    await testDb().db.setting.create({ data: { name: "SITE_NAME", value: "Stale row" } });
    await refreshStoredSettings(() => {});
    expect(env().SITE_NAME).toBe("From the environment");
  });

  it("audits who changed what; a secret is written as (secret) and never listed", async () => {
    await changeSetting(operator, "SITE_NAME", "Pics");
    await changeSetting(operator, "SITE_NAME", "Pics & Clips");
    await changeSetting(operator, "SMTP_URL", "smtp://user:hunter2@mail.example:587");
    const entries = (await listAudit({ limit: 3 })).items;
    expect(entries.map((e) => [e.targetId, e.detail])).toEqual([
      ["SMTP_URL", { old: null, new: "(secret)" }],
      ["SITE_NAME", { old: "Pics", new: "Pics & Clips" }],
      ["SITE_NAME", { old: null, new: "Pics" }],
    ]);
    expect(entries[0].actorName).toBe("root");
    const smtp = (await listSettings()).find((s) => s.declaration.name === "SMTP_URL");
    expect(smtp).toMatchObject({ value: null, isSet: true, source: "console" });
    expect(JSON.stringify(await cli("settings", "list"))).not.toContain("hunter2");
    // The value is used all the same.
    expect(env().SMTP_URL).toBe("smtp://user:hunter2@mail.example:587");
  });

  it("a stored value an older version accepted but this one refuses is left out, not fatal", async () => {
    await testDb().db.setting.create({ data: { name: "REGISTRATION", value: "sometimes" } });
    const lines: string[] = [];
    await refreshStoredSettings((line) => lines.push(line));
    expect(env().REGISTRATION).toBe("open");
    expect(lines.join("\n")).toContain("stored setting REGISTRATION ignored");
  });

  describe("the admin CLI", () => {
    it("settings set / get / list, named after the variables, audited as the CLI", async () => {
      const set = await cli("settings", "set", "UPLOAD_FILES", "all");
      expect(set).toMatchObject({ exitCode: 0, output: { name: "UPLOAD_FILES", value: "all", source: "console", locked: false } });
      expect((await cli("settings", "get", "upload_files")).output).toMatchObject({ value: "all", updated_by: expect.any(String) });
      const listed = (await cli("settings", "list")).output.settings as { name: string; source: string }[];
      expect(listed.find((s) => s.name === "UPLOAD_FILES")?.source).toBe("console");
      expect(listed.find((s) => s.name === "PORT")).toMatchObject({ source: expect.any(String) });
      const reset = await cli("settings", "set", "UPLOAD_FILES", "");
      expect(reset.output).toMatchObject({ value: "media", source: "default" });
      const entry = (await listAudit({ limit: 1 })).items[0];
      expect(entry).toMatchObject({ source: "cli", action: "setting.change", detail: { old: "all", new: null } });
      const bad = await cli("settings", "set", "UPLOAD_FILES", "most");
      expect(bad).toMatchObject({ exitCode: 1, output: { error: { type: "invalid_request" } } });
      expect(String((bad.output.error as { message: string }).message)).toContain("Invalid setting UPLOAD_FILES");
    });

    it("reads the stored settings before each command: import dir follows the console's file kinds", async () => {
      const owner = await createUser({ username: "importer" });
      const dir = mkdtempSync(join(tmpdir(), "settings-import-"));
      try {
        writeFileSync(join(dir, "notes.txt"), "hello from a text file\n");
        const before = await cli("import", "dir", "--user", owner.id, dir, "--dry-run");
        expect(before.output).toMatchObject({ would_import: [] });
        // Stored through the console's verb, in another "process" of the same database.
        await testDb().db.setting.create({ data: { name: "UPLOAD_FILES", value: "media,text" } });
        const after = await cli("import", "dir", "--user", owner.id, dir, "--dry-run");
        expect((after.output.would_import as unknown[]).length).toBe(1);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("setup-code prints /setup's code until an administrator exists", async () => {
      const first = await cli("setup-code");
      expect(first.output).toEqual({ setup_code: setupCode(), url: `${env().PUBLIC_URL}/setup` });
      expect(first.output.setup_code).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
      const admin = await createUser({ username: "boss" });
      await testDb().db.user.update({ where: { id: admin.id }, data: { role: "admin" } });
      expect((await cli("setup-code")).output).toMatchObject({ error: { type: "not_found" } });
    });

    it("user list filters by role, suspension and plan, and pages with next", async () => {
      const a = await createUser({ username: "list-a" });
      const b = await createUser({ username: "list-b" });
      const c = await createUser({ username: "list-c" });
      await setPlan(b.id, "plus");
      await suspendUser(c.id);
      await testDb().db.user.update({ where: { id: a.id }, data: { role: "admin" } });
      // Accounts of the file's other tests share the database: only this test's are compared.
      const names = (out: Record<string, unknown>) =>
        (out.users as { username: string }[]).map((u) => u.username).filter((name) => name.startsWith("list-"));
      expect(names((await cli("user", "list", "--role", "admin")).output)).toEqual(["list-a"]);
      expect(names((await cli("user", "list", "--plan", "plus")).output)).toEqual(["list-b"]);
      expect(names((await cli("user", "list", "--suspended", "true")).output)).toEqual(["list-c"]);
      // Newest first: the three just made lead the list.
      const first = await cli("user", "list", "--limit", "2");
      expect(names(first.output)).toEqual(["list-c", "list-b"]);
      const rest = await cli("user", "list", "--limit", "1", "--after", String(first.output.next));
      expect(names(rest.output)).toEqual(["list-a"]);
      const all = await cli("user", "list", "--limit", "1000");
      expect(all.output.next).toBeNull();
      expect((await cli("user", "list", "--role", "owner")).exitCode).toBe(1);
    });
  });
});
