/**
 * The admin CLI as operators run it: `npm run -s admin` (`node scripts/launch.mjs admin ...`,
 * the bundled CLI) in its own process, on a
 * database it has never seen (it must migrate it), printing exactly one JSON object.
 * By default a representative part of operations.md's table runs here (creations, the
 * contract's refusals, regenerate, a config); CLI_E2E_FULL=1 adds the rest, so that every
 * command runs once as a process. Runs that do not depend on each other go in batches,
 * a few processes at a time.
 *
 * SQLite by default; with TEST_DATABASE_URL, a fresh schema of that PostgreSQL database.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "@/lib/apps/apps";
import { hashKey } from "@/lib/crypto/keys";
import { createDb, setDb, type Db } from "@/lib/db/client";
import { databaseConfig, type DatabaseConfig } from "@/lib/db/config";
import { expectWellFormedKey, rowText } from "./helpers";

const root = resolve(__dirname, "../..");

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  json: Record<string, unknown>;
}

/** Runs the CLI and checks the stdout contract: one JSON object on one line, nothing else. */
function cli(args: string[], databaseUrl: string): Promise<CliRun> {
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
    const started = Date.now();
    child.on("close", (code) => {
      // CLI_TIMING=1 shows what each process costs, when tuning this file's batches.
      if (process.env.CLI_TIMING) console.error(`${Date.now() - started}ms admin ${args.join(" ")}`);
      try {
        const context = `admin ${args.join(" ")}\nstdout: ${stdout}\nstderr: ${stderr}`;
        expect(stdout.endsWith("\n"), context).toBe(true);
        expect(stdout.slice(0, -1), context).not.toContain("\n");
        const json: unknown = JSON.parse(stdout);
        expect(json !== null && typeof json === "object" && !Array.isArray(json), context).toBe(true);
        done({ code, stdout, stderr, json: json as Record<string, unknown> });
      } catch (error) {
        fail(error);
      }
    });
  });
}

/**
 * At most `width` CLI processes at once: the machines have two cores, so more only
 * contend for CPU and for the database's write lock.
 */
function limiter(width: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    // A finishing task hands its slot straight to the next waiter, so `active` never exceeds width.
    if (active < width) active++;
    else await new Promise<void>((start) => waiting.push(start));
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}

interface TargetDatabase {
  url: string;
  config: DatabaseConfig;
  /** Bytes of the database files, to search for secrets (SQLite only). */
  files(): Buffer[];
  drop(): Promise<void>;
}

function targetDatabase(): TargetDatabase {
  const pgUrl = process.env.TEST_DATABASE_URL;
  if (pgUrl) {
    const schema = `cli_${randomBytes(6).toString("hex")}`;
    const url = new URL(pgUrl);
    url.searchParams.set("schema", schema);
    return {
      url: url.toString(),
      config: databaseConfig({ ...process.env, DATABASE_URL: url.toString() }),
      files: () => [],
      async drop() {
        const client = new pg.Client({ connectionString: pgUrl });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), "mediahost-cli-"));
  const file = join(dir, "admin.db");
  return {
    url: `file:${file}`,
    config: databaseConfig({ ...process.env, DATABASE_URL: `file:${file}` }),
    files: () =>
      ["", "-wal", "-journal"]
        .map((s) => file + s)
        .filter(existsSync)
        .map((f) => readFileSync(f)),
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

const ok = (run: CliRun): Record<string, unknown> => {
  expect(run.code, run.stdout + run.stderr).toBe(0);
  expect(run.json).not.toHaveProperty("error");
  return run.json;
};

const failed = (run: CliRun, type: string): void => {
  expect(run.code, run.stdout).toBe(1);
  expect(run.json).toEqual({ error: { type, message: expect.any(String) } });
};

describe("admin CLI process", () => {
  const target = targetDatabase();
  let check: Db;

  beforeAll(() => {
    check = createDb(target.config);
  });
  afterAll(async () => {
    setDb(undefined);
    await check.$disconnect();
    await target.drop();
  });

  /** Ids and keys that the first test creates and the second one reuses. */
  interface Created {
    annId: string;
    boId: string;
    appId: string;
    appKey: string;
    teamId: string;
    revocable: string;
  }
  let created: Created | undefined;
  const slot = limiter(3);
  const run = (line: string | string[]) => slot(() => cli(typeof line === "string" ? line.split(" ") : line, target.url));

  it("migrates a new database, creates accounts and keys, and refuses what the contract refuses", { timeout: 120_000 }, async () => {
    const unused = target.config.provider === "sqlite" ? join(tmpdir(), `never-${randomBytes(4).toString("hex")}.db`) : null;

    // ── 1: the first run migrates; a usage error never opens a database ──
    const [ann, unknown] = await Promise.all([
      run("user create --username Ann --plan ultra --password correct-horse --email ann@example.com"),
      unused ? cli(["frobnicate", "--x", "1"], `file:${unused}`) : run("frobnicate --x 1"),
    ]);
    expect(ok(ann)).toEqual({ id: expect.any(String), username: "Ann", plan: "ultra" });
    failed(unknown, "invalid_request");
    if (unused) expect(existsSync(unused)).toBe(false);
    const annId = String(ann.json.id);

    // ── 2: creations, an unknown user and a bad plan ──
    const [bo, app, session, team, ghost, badPlan] = await Promise.all([
      run("user create --username bo --email bo@example.com"),
      run(["app", "create", "--user", "ANN", "--name", "My desktop", "--gallery-access"]),
      run("session create --user ann --name Laptop"),
      run(["team", "create", "--owner", annId, "--name", "Night crew"]),
      run("user plan --user ghost --plan plus"),
      run("user plan --user ann --plan gold"),
    ]);
    const boId = String(ok(bo).id);
    expect(ok(app)).toEqual({ id: expect.any(String), name: "My desktop", key: expect.any(String), gallery_access: true });
    expect(ok(session)).toEqual({ id: expect.any(String), key: expect.any(String) });
    expect(ok(team)).toEqual({ id: expect.any(String), name: "Night crew", key: expect.any(String) });
    failed(ghost, "not_found");
    failed(badPlan, "invalid_request");
    const appId = String(app.json.id);
    const appKey = String(app.json.key);
    const teamId = String(team.json.id);
    for (const key of [appKey, session.json.key, team.json.key]) expectWellFormedKey(key);

    // Nine more apps, written directly, so that Ann is at the limit of 10.
    setDb(check);
    const seeded = [];
    for (let i = 0; i < 9; i++) seeded.push(await createApp({ userId: annId }));

    // ── 3: the 11th app, a team for a non-Ultra owner, a suspension, a regeneration ──
    const [eleventh, notUltra, suspend, regenerate] = await Promise.all([
      run("app create --user ann"),
      run("team create --owner bo"),
      run(`user suspend --user ${boId}`),
      run(`app regenerate --app ${appId}`),
    ]);
    failed(eleventh, "forbidden");
    expect(String((eleventh.json.error as { message: string }).message)).toMatch(/at most 10 apps/);
    failed(notUltra, "plan_required");
    expect(ok(suspend)).toEqual({ id: boId, suspended: true });
    expect(ok(regenerate)).toEqual({ id: appId, key: expect.any(String) });
    const newKey = String(regenerate.json.key);
    expectWellFormedKey(newKey);
    expect(newKey).not.toBe(appKey);

    // ── 4: an uploader config for the regenerated key ──
    const sharex = await run(["app", "config", "--app", appId, "--key", newKey, "--client", "sharex"]);
    expect(ok(sharex)).toMatchObject({
      Version: "16.1.0",
      RequestURL: expect.stringMatching(/^https?:\/\/.+\/upload$/),
      Headers: { "api-key": newKey, "post-privacy": "unlisted" },
      FileFormName: "file",
      URL: "{json:post.url}",
    });

    // ── what the database holds ──
    expect(await check.user.findUniqueOrThrow({ where: { id: boId } })).toMatchObject({ suspended: true, plan: "free" });
    const appRow = await check.app.findUniqueOrThrow({ where: { id: appId } });
    expect(appRow).toMatchObject({ keyHash: hashKey(newKey), galleryAccess: true, revokedAt: null });
    expect(await check.app.count({ where: { keyHash: hashKey(appKey) } })).toBe(0);
    const sessionRow = await check.relaySession.findUniqueOrThrow({ where: { id: String(session.json.id) } });
    expect(sessionRow.keyHash).toBe(hashKey(String(session.json.key)));
    const teamRow = await check.team.findUniqueOrThrow({ where: { id: teamId } });
    expect(teamRow.keyHash).toBe(hashKey(String(team.json.key)));

    // Keys are shown once and stored only as hashes: no row, and no byte of the file, holds one.
    const keys = [appKey, newKey, String(session.json.key), String(team.json.key)];
    const rows = rowText([appRow, sessionRow, teamRow, await check.user.findMany()]);
    for (const key of keys) expect(rows).not.toContain(key);
    for (const bytes of target.files()) for (const key of keys) expect(bytes.includes(key)).toBe(false);
    expect(rows).not.toContain("correct-horse");

    created = { annId, boId, appId, appKey: newKey, teamId, revocable: seeded[0].app.id };
  });

  // Each process costs about a third of a second of CPU, so the rest of the table (every command
  // of which also runs in-process in commands.test.ts) runs as processes on request.
  it.runIf(process.env.CLI_E2E_FULL)("runs the rest of the table as processes (CLI_E2E_FULL=1)", { timeout: 120_000 }, async () => {
    if (!created) throw new Error("needs the previous test");
    const { annId, boId, appId, appKey, teamId, revocable } = created;
    await check.post.create({ data: { code: "cliMod1", userId: annId, privacy: "public" } });
    await check.post.create({ data: { code: "cliRes1", userId: annId, privacy: "public" } });
    const config = (client: string) => run(["app", "config", "--app", appId, "--key", appKey, "--client", client]);

    const [plan, unsuspend, quota, priority, revoke, member, lapse, moderate, restrict, chatterino, flameshot] = await Promise.all([
      run("user plan --user bo --plan plus"),
      run("user unsuspend --user bo"),
      run("user quota --user bo --bytes 1073741824"),
      run(`user priority --user ${boId} --minutes 30`),
      run(`app revoke --app ${revocable}`),
      run(`team member add --team ${teamId} --user bo`),
      run(`team lapse --team ${teamId}`),
      run("post moderate --code cliMod1"),
      run("post restrict --code cliRes1"),
      config("chatterino"),
      config("flameshot"),
    ]);
    expect(ok(plan)).toEqual({ id: boId, plan: "plus" });
    expect(ok(unsuspend)).toEqual({ id: boId, suspended: false });
    expect(ok(quota)).toEqual({ id: boId, quota: 1073741824 });
    expect(ok(priority)).toEqual({ id: boId, priority_minutes: 30 });
    expect(ok(revoke)).toEqual({ id: revocable, key: null });
    expect(ok(member)).toEqual({ team_id: teamId, user_id: boId });
    expect(ok(lapse)).toEqual({ id: teamId, status: "lapsed" });
    expect(ok(moderate)).toEqual({ code: "cliMod1", moderated: true });
    expect(ok(restrict)).toEqual({ code: "cliRes1", restricted: true });
    expect(ok(chatterino)).toMatchObject({ form_field: "file", extra_headers: expect.stringContaining(`api-key: ${appKey}`) });
    expect(String(ok(flameshot).script)).toContain("flameshot gui -r");

    const [renew, unmoderate] = await Promise.all([run(`team renew --team ${teamId}`), run("post unmoderate --code cliMod1")]);
    expect(ok(renew)).toEqual({ id: teamId, status: "active" });
    expect(ok(unmoderate)).toEqual({ code: "cliMod1", moderated: false });

    expect(await check.user.findUniqueOrThrow({ where: { id: boId } })).toMatchObject({
      plan: "plus",
      suspended: false,
      quotaOverride: 1073741824n,
      priorityMinutes: 30,
    });
    expect(await check.post.findUniqueOrThrow({ where: { code: "cliRes1" } })).toMatchObject({ restricted: true, privacy: "unlisted" });
    expect((await check.app.findUniqueOrThrow({ where: { id: revocable } })).keyHash).toBeNull();
  });
});
