/**
 * Starts the production server once for the whole e2e run (a build is made when the
 * sources changed, as `npm start` does) with PUBLIC_URL set to where the browser reaches
 * it, so sign-in redirects and absolute URLs point at the test server.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestServer } from "../support/server";

export default async function globalSetup(): Promise<() => Promise<void>> {
  const port = process.env.E2E_PORT;
  if (!port) throw new Error("E2E_PORT is set by playwright.config.ts");
  const url = `http://127.0.0.1:${port}`;
  // Media fixtures (tests/support/media.ts) are generated here, once per run.
  const runDir = mkdtempSync(join(tmpdir(), "mediahost-e2e-"));
  process.env.TEST_RUN_DIR = runDir;
  // WEBHOOK_ALLOW_PRIVATE: webhooks.spec.ts's receiver listens on 127.0.0.1 (docs/webhooks.md).
  // SMTP_URL: accounts.spec.ts listens there for the password-reset mail (docs/web-auth.md).
  const server = await startTestServer(
    {
      PORT: port,
      PUBLIC_URL: url,
      REGISTRATION: "open",
      WEBHOOK_ALLOW_PRIVATE: "127.0.0.1",
      SMTP_URL: `smtp://127.0.0.1:${Number(port) + 1}`,
      MAIL_FROM: "Media host <noreply@media.test>",
    },
    // The one server of the run that migrates its own empty database, as a deployment does.
    { migrateAtStart: true },
  );
  process.env.E2E_DATA_DIR = server.dataDir;
  // The database the admin CLI must use (PostgreSQL when TEST_DATABASE_URL is set).
  process.env.E2E_SERVER_ENV = JSON.stringify(server.env);
  return async () => {
    const code = await server.stop();
    // Kept for failure analysis next to the other test output.
    mkdirSync("test-results", { recursive: true });
    writeFileSync("test-results/e2e-server.log", server.output());
    rmSync(runDir, { recursive: true, force: true });
    if (code !== 0) console.error(`server exited with ${code}:\n${server.output().slice(-4000)}`);
  };
}
