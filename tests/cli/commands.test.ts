/**
 * Every command of the admin CLI, run in-process against the test database: flags, output
 * shapes and errors. tests/cli/admin-process.test.ts covers the real process (stdout,
 * exit codes, migrating a new database) with fewer, slower runs.
 */
import { describe, expect, it } from "vitest";
import { useTestDatabase } from "../support/db";
import { hashKey } from "@/lib/crypto/keys";
import { runAdmin, type AdminResult } from "@/lib/cli/admin";
import { COMMANDS } from "@/lib/cli/commands";
import { expectWellFormedKey } from "./helpers";

type Json = Record<string, unknown>;

/** Runs a command line (split on spaces) and returns its output, expecting success. */
async function ok(line: string | string[]): Promise<Json> {
  const result = await runAdmin(typeof line === "string" ? line.split(" ") : line);
  expect(result.output, JSON.stringify(result.output)).not.toHaveProperty("error");
  expect(result.exitCode).toBe(0);
  return result.output as Json;
}

/** Runs a command line expecting failure; returns the error object. */
async function fails(line: string | string[], type: string): Promise<{ type: string; message: string }> {
  const result: AdminResult = await runAdmin(typeof line === "string" ? line.split(" ") : line, { log: () => {} });
  expect(result.exitCode).toBe(1);
  expect(Object.keys(result.output)).toEqual(["error"]);
  const error = result.output.error as { type: string; message: string };
  expect(Object.keys(error).sort()).toEqual(["message", "type"]);
  expect(error.type).toBe(type);
  expect(error.message.length).toBeGreaterThan(0);
  return error;
}

describe("admin commands", () => {
  const testDb = useTestDatabase();

  describe("user", () => {
    it("create prints {id, username, plan}", async () => {
      const out = await ok("user create --username Olivia --plan plus --password hunter2hunter2 --email olivia@example.com");
      expect(out).toEqual({ id: expect.any(String), username: "Olivia", plan: "plus" });
      expect(await ok("user create --username pat")).toEqual({ id: expect.any(String), username: "pat", plan: "free" });
    });

    it("create refuses duplicates, bad plans and missing or unknown flags", async () => {
      await ok("user create --username quinn");
      await fails("user create --username QUINN", "invalid_request");
      expect((await fails("user create --username rob --plan gold", "invalid_request")).message).toContain("--plan");
      expect((await fails("user create", "invalid_request")).message).toContain("--username is required");
      expect((await fails("user create --username rob --colour red", "invalid_request")).message).toContain("--colour");
      expect((await fails("user create --username", "invalid_request")).message).toContain("--username");
    });

    it("plan, suspend, unsuspend, quota and priority accept a username or an id", async () => {
      const { id } = await ok("user create --username Sam");
      expect(await ok("user plan --user SAM --plan ultra")).toEqual({ id, plan: "ultra" });
      expect(await ok(`user suspend --user ${id}`)).toEqual({ id, suspended: true });
      expect(await ok("user unsuspend --user sam")).toEqual({ id, suspended: false });
      expect(await ok("user quota --user sam --bytes 1073741824")).toEqual({ id, quota: 1073741824 });
      expect(await ok("user quota --user sam --bytes 10GB")).toEqual({ id, quota: 10 * 1024 ** 3 });
      expect(await ok("user priority --user sam --minutes 120")).toEqual({ id, priority_minutes: 120 });

      const row = await testDb().db.user.findUniqueOrThrow({ where: { id: String(id) } });
      expect(row).toMatchObject({ plan: "ultra", suspended: false, quotaOverride: 10n * 1024n ** 3n, priorityMinutes: 120 });
    });

    it("reports unknown users as not_found and bad numbers as invalid_request", async () => {
      await ok("user create --username tess");
      for (const line of [
        "user plan --user ghost --plan plus",
        "user suspend --user ghost",
        "user unsuspend --user ghost",
        "user quota --user ghost --bytes 5",
        "user priority --user ghost --minutes 5",
      ]) {
        await fails(line, "not_found");
      }
      await fails("user plan --user tess --plan gold", "invalid_request");
      await fails("user quota --user tess --bytes -5", "invalid_request");
      await fails("user quota --user tess --bytes lots", "invalid_request");
      await fails("user priority --user tess --minutes 1.5", "invalid_request");
      await fails("user priority --user tess", "invalid_request");
    });
  });

  describe("app", () => {
    it("create, revoke, regenerate and config", async () => {
      await ok("user create --username uma");
      const created = await ok("app create --user uma --name Desktop --gallery-access");
      expect(created).toEqual({ id: expect.any(String), name: "Desktop", key: expect.any(String), gallery_access: true });
      expectWellFormedKey(created.key);
      const plain = await ok("app create --user uma");
      expect(plain).toMatchObject({ name: "App 2", gallery_access: false });
      expect(await ok("app create --user uma --gallery-access false")).toMatchObject({ gallery_access: false });

      const appId = String(created.id);
      const sharex = await ok(["app", "config", "--app", appId, "--key", String(created.key), "--client", "sharex"]);
      expect(sharex).toMatchObject({
        Version: "16.1.0",
        FileFormName: "file",
        Headers: { "api-key": created.key, "post-privacy": "unlisted" },
      });
      expect(String(sharex.RequestURL)).toMatch(/^https?:\/\/.+\/upload$/);
      const chatterino = await ok(["app", "config", "--app", appId, "--key", String(created.key), "--client", "chatterino"]);
      expect(Object.keys(chatterino).sort()).toEqual(["deletion_link", "extra_headers", "form_field", "image_link", "request_url"]);
      const flameshot = await ok(["app", "config", "--app", appId, "--key", String(created.key), "--client", "flameshot"]);
      expect(Object.keys(flameshot)).toEqual(["script"]);
      expect(String(flameshot.script)).toContain(String(created.key));

      const regenerated = await ok(`app regenerate --app ${appId}`);
      expect(regenerated).toEqual({ id: appId, key: expect.any(String) });
      expect(regenerated.key).not.toBe(created.key);
      expect(await testDb().db.app.count({ where: { keyHash: hashKey(String(created.key)) } })).toBe(0);
      // The old key no longer yields a config.
      await fails(["app", "config", "--app", appId, "--key", String(created.key), "--client", "sharex"], "invalid_request");

      expect(await ok(`app revoke --app ${appId}`)).toEqual({ id: appId, key: null });
      await fails(["app", "config", "--app", appId, "--key", String(regenerated.key), "--client", "sharex"], "invalid_request");
      const revived = await ok(`app regenerate --app ${appId}`);
      expectWellFormedKey(revived.key);
    });

    it("refuses the 11th app, unknown apps and unknown clients", async () => {
      await ok("user create --username vic");
      for (let i = 0; i < 10; i++) await ok("app create --user vic");
      expect((await fails("app create --user vic", "forbidden")).message).toMatch(/at most 10/);
      await fails("app create --user ghost", "not_found");
      await fails("app revoke --app missing", "not_found");
      await fails("app regenerate --app missing", "not_found");
      await fails("app config --app missing --key mha_x --client sharex", "not_found");
      await fails("app config --app missing --key mha_x --client sharexx", "invalid_request");
      await fails("app create --user vic --gallery-access maybe", "invalid_request");
    });
  });

  describe("session and team", () => {
    it("session create prints {id, key}", async () => {
      await ok("user create --username wes");
      const out = await ok("session create --user wes --name Phone");
      expect(out).toEqual({ id: expect.any(String), key: expect.any(String) });
      expectWellFormedKey(out.key);
      const row = await testDb().db.relaySession.findUniqueOrThrow({ where: { id: String(out.id) } });
      expect(row.keyHash).toBe(hashKey(String(out.key)));
      await fails("session create --user ghost", "not_found");
    });

    it("team create needs Ultra; member add, lapse and renew", async () => {
      const free = await ok("user create --username xena");
      const team = await fails("team create --owner xena", "plan_required");
      expect(team.message).toMatch(/Ultra/);
      await ok("user plan --user xena --plan ultra");
      const created = await ok(["team", "create", "--owner", "xena", "--name", "Night shift"]);
      expect(created).toEqual({ id: expect.any(String), name: "Night shift", key: expect.any(String) });
      expectWellFormedKey(created.key);

      const member = await ok("user create --username yuri");
      expect(await ok(`team member add --team ${created.id} --user yuri`)).toEqual({ team_id: created.id, user_id: member.id });
      expect(await ok(`team lapse --team ${created.id}`)).toEqual({ id: created.id, status: "lapsed" });
      expect(await ok(`team renew --team ${created.id}`)).toEqual({ id: created.id, status: "active" });
      await fails("team lapse --team missing", "not_found");
      await fails("team member add --team missing --user yuri", "not_found");
      await fails(`team member add --team ${created.id} --user ghost`, "not_found");
      await fails("team create --owner ghost", "not_found");
      expect(free.plan).toBe("free");
    });
  });

  describe("post", () => {
    it("moderate, unmoderate and restrict by code", async () => {
      const { id } = await ok("user create --username zoe");
      await testDb().db.post.create({ data: { code: "cliPost1", userId: String(id), privacy: "public" } });
      expect(await ok("post moderate --code cliPost1")).toEqual({ code: "cliPost1", moderated: true });
      expect(await ok("post unmoderate --code cliPost1")).toEqual({ code: "cliPost1", moderated: false });
      expect(await ok("post restrict --code cliPost1")).toEqual({ code: "cliPost1", restricted: true });
      const row = await testDb().db.post.findUniqueOrThrow({ where: { code: "cliPost1" } });
      expect(row).toMatchObject({ restricted: true, privacy: "unlisted", moderated: false });
      await fails("post moderate --code nope", "not_found");
      await fails("post restrict --code nope", "not_found");
    });
  });

  describe("usage errors", () => {
    it("refuses unknown and missing commands", async () => {
      expect((await fails("frobnicate", "invalid_request")).message).toContain("frobnicate");
      await fails("user vanish --user bob", "invalid_request");
      await fails("team member", "invalid_request");
      await fails([], "invalid_request");
      await fails("user create --username a --username b", "invalid_request");
    });

    it("help lists every command without touching the database", async () => {
      let touched = false;
      const result = await runAdmin(["help"], { beforeRun: async () => void (touched = true) });
      expect(result).toEqual({ exitCode: 0, output: { commands: COMMANDS.map((c) => c.usage) } });
      expect(touched).toBe(false);
    });

    it("validates flags before anything touches the database", async () => {
      let touched = false;
      const result = await runAdmin(["user", "plan", "--user", "x", "--plan", "gold"], { beforeRun: async () => void (touched = true) });
      expect(result.exitCode).toBe(1);
      expect(touched).toBe(false);
    });

    it("reports unexpected failures as internal", async () => {
      const logged: string[] = [];
      const result = await runAdmin(["user", "suspend", "--user", "x"], {
        beforeRun: () => Promise.reject(new Error("database unreachable")),
        log: (m) => logged.push(m),
      });
      expect(result).toEqual({ exitCode: 1, output: { error: { type: "internal", message: "database unreachable" } } });
      expect(logged.join("\n")).toContain("database unreachable");
    });
  });
});
