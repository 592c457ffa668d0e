/**
 * The container recipe (Dockerfile, compose.yaml; docs/container.md) cannot be built or run
 * here, so its contract with the service is checked as text: every variable the image and
 * the compose service set is one the service parses (lib/config/env.ts), the image starts
 * with the README's `npm start`, runs as a non-root user with Debian's ffmpeg and a health
 * check on /healthz, and the compose service is wired to its PostgreSQL, Redis and MinIO.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ENV_VARIABLES } from "@/lib/config/env";
import { databaseConfig } from "@/lib/db/config";
import { s3ConfigFromEnv } from "@/lib/storage/config";

const root = fileURLToPath(new URL("../..", import.meta.url));
const read = (name: string): string => readFileSync(join(root, name), "utf8");

/** Dockerfile instructions of one stage, continuation lines joined, comments dropped. */
function stages(dockerfile: string): string[][] {
  const lines = dockerfile
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
  const out: string[][] = [];
  for (const line of lines) {
    if (/^FROM\s/i.test(line)) out.push([]);
    out.at(-1)?.push(line);
  }
  return out;
}

/** `ENV A=1 B=2` (and the legacy `ENV A 1`) of one stage. */
function envOf(stage: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of stage.filter((l) => /^ENV\s/i.test(l))) {
    const rest = line.replace(/^ENV\s+/i, "");
    if (!rest.includes("=")) {
      const [name, ...value] = rest.split(/\s+/);
      env[name] = value.join(" ");
      continue;
    }
    for (const [, name, value] of rest.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S*)/g)) env[name] = value.replace(/^"|"$/g, "");
  }
  return env;
}

/** The `environment:` map of one compose service, `${VAR:-default}` resolved to its default, `${VAR:?message}` to `set-VAR`. */
function composeEnv(compose: string, service: string): Record<string, string> {
  const lines = compose.split("\n");
  const start = lines.indexOf(`  ${service}:`);
  expect(start, `service ${service}`).toBeGreaterThan(-1);
  const env: Record<string, string> = {};
  let inEnv = false;
  for (const line of lines.slice(start + 1)) {
    if (/^ {0,2}\S/.test(line)) break; // the next service or top-level key
    if (/^ {4}\S/.test(line)) {
      inEnv = line.trim() === "environment:";
      continue;
    }
    const entry = /^ {6}([A-Za-z_][A-Za-z0-9_]*):\s*(.*)$/.exec(line);
    if (inEnv && entry) {
      env[entry[1]] = entry[2]
        .replace(/\$\{[A-Za-z_][A-Za-z0-9_]*:?-([^}]*)\}/g, "$1")
        // A required variable (`${VAR:?message}`) stands for the value the operator set.
        .replace(/\$\{([A-Za-z_][A-Za-z0-9_]*):\?[^}]*\}/g, "set-$1");
    }
  }
  return env;
}

const dockerfile = read("Dockerfile");
const compose = read("compose.yaml");
const all = stages(dockerfile);
const image = all.at(-1) ?? [];

describe("Dockerfile", () => {
  it("is multi-stage; the image runs as a non-root user", () => {
    expect(all.length).toBeGreaterThanOrEqual(2);
    const users = image.filter((l) => /^USER\s/i.test(l)).map((l) => l.split(/\s+/)[1]);
    expect(users.length).toBeGreaterThan(0);
    expect(["root", "0"]).not.toContain(users.at(-1));
  });

  it("starts with the README's command", () => {
    const cmd = image.find((l) => /^CMD\s/i.test(l));
    expect(JSON.parse(cmd!.replace(/^CMD\s+/i, ""))).toEqual(["npm", "start"]);
    expect(image.some((l) => /^ENTRYPOINT\s/i.test(l))).toBe(false);
    expect(read("README.md")).toMatch(/^npm (install && npm )?start\b/m);
    expect((JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts.start).toBeTruthy();
  });

  it("checks its health on /healthz", () => {
    const check = image.find((l) => /^HEALTHCHECK\s/i.test(l));
    expect(check).toMatch(/\/healthz/);
  });

  it("uses Debian's ffmpeg", () => {
    expect(image.some((l) => /^RUN\s.*apt-get install[^&]*\bffmpeg\b/.test(l))).toBe(true);
    const env = envOf(image);
    expect(env.FFMPEG_PATH).toBe("/usr/bin/ffmpeg");
    expect(env.FFPROBE_PATH).toBe("/usr/bin/ffprobe");
  });

  it("sets only variables the service reads", () => {
    // The build stages' variables configure build tools (Next's telemetry), not the service.
    const names = Object.keys(envOf(image));
    expect(names.length).toBeGreaterThan(0);
    expect(names.filter((name) => !ENV_VARIABLES.includes(name))).toEqual([]);
  });
});

describe("compose.yaml", () => {
  const env = composeEnv(compose, "mediahost");

  it("sets only variables the service reads", () => {
    expect(Object.keys(env).length).toBeGreaterThan(0);
    expect(Object.keys(env).filter((name) => !ENV_VARIABLES.includes(name))).toEqual([]);
  });

  it("refuses to start without its passwords: no default to forget to change", () => {
    const passwords = [...compose.matchAll(/\$\{([A-Z_]*PASSWORD[A-Z_]*)([^}]*)\}/g)];
    expect(passwords.map((m) => m[1]).sort()).toEqual(expect.arrayContaining(["MINIO_PASSWORD", "POSTGRES_PASSWORD"]));
    for (const [use, , rest] of passwords) expect(rest, use).toMatch(/^:\?\S/);
  });

  it("builds the Dockerfile and runs PostgreSQL, Redis and MinIO beside it", () => {
    expect(compose).toMatch(/^ {2}mediahost:\n(?: {4}.*\n)*? {4}build: \.$/m);
    for (const service of ["postgres", "redis", "minio"]) expect(compose).toMatch(new RegExp(`^  ${service}:$`, "m"));
  });

  it("wires the service to them with the variables the service actually reads", () => {
    const db = databaseConfig({ ...env, NODE_ENV: "production" });
    expect(db.provider).toBe("postgres");
    expect(new URL(db.url).host).toBe("postgres:5432");
    expect(new URL(env.REDIS_URL).host).toBe("redis:6379");
    expect(env.STORAGE).toBe("s3");
    const s3 = s3ConfigFromEnv(env);
    expect(s3.bucket).toBe("mediahost");
    expect(new URL(s3.endpoint!).host).toBe("minio:9000");
    expect(s3.accessKeyId).toBeTruthy();
    expect(s3.secretAccessKey).toBe(composeEnv(compose, "minio").MINIO_ROOT_PASSWORD);
    expect(s3.accessKeyId).toBe(composeEnv(compose, "minio").MINIO_ROOT_USER);
  });
});
