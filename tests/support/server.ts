/**
 * The real server for black-box tests: a production build (reused while the sources are
 * unchanged, see lib/server/build.ts) served by `npm start` (scripts/launch.mjs) in a child process, on a
 * free port, with its own DATA_DIR. Parallel test files share one build.
 */
import { createServer as createNetServer } from "node:net";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureBuild } from "@/lib/server/build";

export interface TestServer {
  /** e.g. http://127.0.0.1:40123 */
  url: string;
  dataDir: string;
  /** The server process (for its RSS in /proc). */
  pid: number;
  /** Everything the server printed so far, for failure messages. */
  output(): string;
  /** SIGTERM, then waits for the exit; resolves with the exit code. */
  stop(): Promise<number | null>;
}

const root = fileURLToPath(new URL("../..", import.meta.url));
const READY_TIMEOUT_MS = 60_000;

export async function startTestServer(extraEnv: Record<string, string> = {}): Promise<TestServer> {
  await ensureBuild(root, { stdio: "pipe" });
  const dataDir = mkdtempSync(join(tmpdir(), "mediahost-server-"));
  // The child is a production server: none of vitest's variables, and NODE_ENV its own.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("VITEST")));
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    NODE_ENV: "production",
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    NEXT_TELEMETRY_DISABLED: "1",
    // As `npm start` sets it (package.json).
    MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? "2",
    ...extraEnv,
  };
  // What `npm start` runs, without npm in between: one process, so signals reach the server.
  const child: ChildProcess = spawn(process.execPath, ["scripts/launch.mjs"], {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));

  const url = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`server not ready after ${READY_TIMEOUT_MS} ms:\n${output}`)), READY_TIMEOUT_MS);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /^listening on (\S+)$/m.exec(output);
      if (match) {
        clearTimeout(timer);
        done(match[1]);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    void exited.then((code) => {
      clearTimeout(timer);
      fail(new Error(`server exited (${code}) before it was ready:\n${output}`));
    });
  });

  return {
    url,
    dataDir,
    pid: child.pid!,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const force = setTimeout(() => child.kill("SIGKILL"), 15_000);
      const code = await exited;
      clearTimeout(force);
      rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}

/** A loopback port nothing listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createNetServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}
