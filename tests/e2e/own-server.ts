/**
 * A second server for the specs that need another PUBLIC_URL than the shared one: WebAuthn
 * refuses an IP address as relying party (the shared server is http://127.0.0.1:PORT), so
 * the passkey and OIDC specs run theirs at http://localhost:PORT, a secure context for
 * Chromium. Same build, same database settings as every test server (tests/support/server.ts).
 */
import { execFile } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, type Page } from "@playwright/test";
import { startTestServer, type TestServer } from "../support/server";
import { uniqueName } from "./support";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));

/** A port that was free a moment ago (the server must know its URL before it listens). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

export interface LocalhostServer {
  url: string;
  server: TestServer;
}

export async function startLocalhostServer(env: Record<string, string> = {}, port?: number): Promise<LocalhostServer> {
  const chosen = port ?? (await freePort());
  const url = `http://localhost:${chosen}`;
  const server = await startTestServer({ PORT: String(chosen), PUBLIC_URL: url, REGISTRATION: "open", ...env });
  return { url, server };
}

/**
 * Creates an account with the admin CLI against this server's database and signs the page
 * in with its password. Not through /register: sign-ups are limited per address (10 an
 * hour), and with Redis that count is shared by every test server of the run.
 */
/** Runs the admin CLI against this server's database; returns its JSON answer. */
export async function adminOn(own: LocalhostServer, ...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, ["scripts/launch.mjs", "admin", ...args], {
    cwd: root,
    env: { ...process.env, ...own.server.env, NODE_ENV: "production" },
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

export async function createAndSignIn(page: Page, own: LocalhostServer): Promise<string> {
  const username = uniqueName("pk");
  const password = "correct horse battery";
  await adminOn(own, "user", "create", "--username", username, "--password", password);
  await page.goto(`${own.url}/signin`);
  await page.getByLabel("Username or email").fill(username);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  // The password check is scrypt (128 MiB): slow on a loaded machine.
  await page.waitForURL((url) => !url.pathname.startsWith("/signin"), { timeout: 120_000 });
  await expect(page.locator("summary").filter({ hasText: `Signed in as ${username}` })).toBeVisible();
  return username;
}

export async function signOutThroughPage(page: Page, base: string): Promise<void> {
  await page.goto(`${base}/signout`);
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByRole("link", { name: "Sign in", exact: true }).first()).toBeVisible();
}
