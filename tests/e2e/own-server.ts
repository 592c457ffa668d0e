/**
 * A second server for the specs that need another PUBLIC_URL than the shared one: WebAuthn
 * refuses an IP address as relying party (the shared server is http://127.0.0.1:PORT), so
 * the passkey and OIDC specs run theirs at http://localhost:PORT, a secure context for
 * Chromium. Same build, same database settings as every test server (tests/support/server.ts).
 */
import { createServer } from "node:net";
import { expect, type Page } from "@playwright/test";
import { startTestServer, type TestServer } from "../support/server";

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

/** Creates an account through /register on `base`; leaves the page signed in. */
export async function registerThroughPage(page: Page, base: string, username: string): Promise<void> {
  await page.goto(`${base}/register`);
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill("a good long password");
  await page.getByRole("button", { name: "Create account" }).click();
  // Sign-up hashes the password (scrypt, 128 MiB): slow on a loaded machine.
  await page.waitForURL((url) => !url.pathname.startsWith("/register"), { timeout: 120_000 });
  await expect(page.getByRole("link", { name: `Signed in as ${username}` })).toBeVisible();
}

export async function signOutThroughPage(page: Page, base: string): Promise<void> {
  await page.goto(`${base}/signout`);
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByRole("link", { name: "Sign in", exact: true }).first()).toBeVisible();
}
