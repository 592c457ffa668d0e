/**
 * Child processes of a benchmark: the production server (scripts/start.ts, the built app)
 * and bare node:http reference servers, each a process of its own so that none shares the
 * load generator's event loop; plus reading a process's memory from /proc.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, readFileSync } from "node:fs";
import { onCleanup, freePort, ROOT, tempDir } from "./run";

const SERVER_READY_MS = 120_000;

export interface Child {
  url: string;
  pid: number;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts a child that prints `listening on <url>` (scripts/start.ts and the reference
 * servers of the benches all do), with only the given environment, so no configuration of
 * the shell running the bench (STORAGE, DATABASE_URL, MEDIA_*, PLAN_*...) leaks into "the
 * embedded defaults". Stopped by cleanupAll at the latest.
 */
export async function spawnListening(name: string, args: string[], env: NodeJS.ProcessEnv): Promise<Child> {
  const child: ChildProcess = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  if (child.pid === undefined) throw new Error(`${name} did not start`);
  const pid = child.pid;
  let output = "";
  const exited = new Promise<void>((done) =>
    child.on("exit", (code, signal) => {
      // Shown with the output when a run fails: a server that died says how.
      output += `\n[${name} exited: code ${code}, signal ${signal}]\n`;
      done();
    }),
  );
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    const force = setTimeout(() => child.kill("SIGKILL"), 15_000);
    await exited;
    clearTimeout(force);
  };
  onCleanup(stop);
  const url = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`${name} not ready after ${SERVER_READY_MS} ms:\n${output}`)), SERVER_READY_MS);
    const onData = (chunk: Buffer): void => {
      // Keep the start and the recent end: enough to explain a failure, bounded under load.
      output = output.length > 200_000 ? output.slice(0, 20_000) + output.slice(-100_000) : output;
      output += chunk.toString();
      const match = /^listening on (\S+)$/m.exec(output);
      if (match) {
        clearTimeout(timer);
        done(match[1]);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    // BENCH_SERVER_LOG=<prefix>: each child's whole output in <prefix>.<name> (with BENCH_NODE_ARGS="--trace-gc", its collections).
    if (process.env.BENCH_SERVER_LOG) {
      const log = createWriteStream(`${process.env.BENCH_SERVER_LOG}.${name}`);
      child.stdout?.pipe(log);
      child.stderr?.pipe(log);
    }
    void exited.then(() => {
      clearTimeout(timer);
      fail(new Error(`${name} exited before it was ready:\n${output}`));
    });
  });
  return { url, pid, output: () => output, stop };
}

/** The inherited variables a Node process needs to run; nothing that configures the service. */
export function baseEnv(): Record<string, string> {
  const keep = ["PATH", "HOME", "TMPDIR", "LANG", "TZ"];
  return Object.fromEntries(keep.flatMap((k) => (process.env[k] === undefined ? [] : [[k, process.env[k]]])));
}

export interface Server extends Child {
  dataDir: string;
  /** The environment it runs with (the admin CLI needs the same database settings). */
  env: NodeJS.ProcessEnv;
}

/** The node flags `npm start` passes (package.json); BENCH_NODE_ARGS, later on the line, overrides them. */
const START_NODE_FLAGS = ["--max-semi-space-size=8"];

/**
 * `npm start` (scripts/launch.mjs: scripts/start.ts bundled, the production build) on a free loopback port with a
 * fresh DATA_DIR and the embedded defaults, changed only by `extraEnv`. With a
 * `profileDir` it runs under `node --cpu-prof` and writes its profile there when it stops.
 */
export async function startServer(extraEnv: Record<string, string> = {}, profileDir: string | null = null): Promise<Server> {
  const dataDir = await tempDir("mediahost-bench-data-");
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const profile = profileDir ? ["--cpu-prof", "--cpu-prof-dir", profileDir] : [];
  const env: NodeJS.ProcessEnv = {
    ...baseEnv(),
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    PORT: String(port),
    HOST: "127.0.0.1",
    PUBLIC_URL: origin,
    DATA_DIR: dataDir,
    DATABASE_URL: "",
    // As `npm start` sets it (package.json): two malloc arenas, not 8 per core.
    MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? "2",
    // For experiments with the old generation's growth (scripts/start.ts), like BENCH_NODE_ARGS.
    ...(process.env.HEAP_GROWING_PERCENT ? { HEAP_GROWING_PERCENT: process.env.HEAP_GROWING_PERCENT } : {}),
    ...extraEnv,
  };
  // BENCH_NODE_ARGS: extra node flags for experiments (V8 heap and GC flags, which NODE_OPTIONS partly refuses).
  const extraArgs = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const child = await spawnListening("server", [...START_NODE_FLAGS, ...profile, ...extraArgs, "scripts/launch.mjs"], env);
  return { ...child, dataDir, env };
}

/** A `kB` field of /proc/<pid>/status (VmRSS, VmHWM...) in bytes; null once the process has exited. */
export function statusField(pid: number, field: string): number | null {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null; // the process has exited
  }
}
