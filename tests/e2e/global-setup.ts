/**
 * Starts a production server for each Playwright worker, once for the whole e2e run (a build
 * is made when the sources changed, as `npm start` does), with PUBLIC_URL set to where the
 * browser reaches it, so sign-in redirects and absolute URLs point at the test server.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FullConfig } from "@playwright/test";
import { startTestServer, type TestServer } from "../support/server";

export default async function globalSetup(config: FullConfig): Promise<() => Promise<void>> {
  const base = Number(process.env.E2E_BASE_PORT);
  if (!base) throw new Error("E2E_BASE_PORT is set by playwright.config.ts");
  // Media fixtures (tests/support/media.ts) are generated here, once per run, for every worker.
  const runDir = mkdtempSync(join(tmpdir(), "mediahost-e2e-"));
  process.env.TEST_RUN_DIR = runDir;
  // One server per worker (playwright.config.ts), started side by side: worker i reaches its
  // own at base + 2i (and the mailbox at the port after it).
  const started = await Promise.allSettled(
    Array.from({ length: Math.max(1, config.workers) }, (_, i) => startE2EServer(base + 2 * i, i === 0)),
  );
  const servers = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  const failure = started.find((s) => s.status === "rejected");
  if (failure) {
    // No server is left running when another could not start.
    await Promise.all(servers.map((server) => server.stop()));
    throw failure.reason;
  }
  servers.forEach((server, i) => {
    // The database the admin CLI must use (PostgreSQL when TEST_DATABASE_URL is set).
    process.env[`E2E_SERVER_ENV_${i}`] = JSON.stringify(server.env);
  });
  return async () => {
    const codes = await Promise.all(servers.map((server) => server.stop()));
    // Kept for failure analysis next to the other test output.
    mkdirSync("test-results", { recursive: true });
    servers.forEach((server, i) => {
      writeFileSync(`test-results/e2e-server${i === 0 ? "" : `-${i}`}.log`, server.output());
      if (codes[i] !== 0) console.error(`server ${i} exited with ${codes[i]}:\n${server.output().slice(-4000)}`);
    });
    rmSync(runDir, { recursive: true, force: true });
  };
}

function startE2EServer(port: number, migrateAtStart: boolean): Promise<TestServer> {
  const url = `http://127.0.0.1:${port}`;
  // WEBHOOK_ALLOW_PRIVATE: webhooks.spec.ts's receiver listens on 127.0.0.1 (docs/webhooks.md).
  // SMTP_URL: accounts.spec.ts listens there for the password-reset mail (docs/web-auth.md).
  return startTestServer(
    {
      PORT: String(port),
      PUBLIC_URL: url,
      REGISTRATION: "open",
      WEBHOOK_ALLOW_PRIVATE: "127.0.0.1",
      SMTP_URL: `smtp://127.0.0.1:${port + 1}`,
      MAIL_FROM: "Media host <noreply@media.test>",
    },
    // The first server migrates its own empty database, as a deployment does; the others are
    // handed one already migrated (the migrator's start is most of a server's).
    { migrateAtStart },
  );
}
