/** Helpers of the e2e specs: accounts through the admin CLI's code, uploads through the API. */
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import type { Page } from "@playwright/test";

export const baseUrl = (): string => `http://127.0.0.1:${process.env.E2E_PORT}`;

type RunAdmin = typeof import("@/lib/cli/admin").runAdmin;
let adminInProcess: Promise<RunAdmin> | undefined;

/**
 * The admin CLI's code (lib/cli/admin.ts, what `npm run admin` runs) in this worker's
 * process, against its own server's database: one `admin` process per call cost about 2 s
 * of CPU (loading the bundle and compiling its queries), 150 s of the browser suite's CPU
 * for ~75 calls (docs/development.md, "Test time"). The CLI as a process is tested in
 * tests/cli/admin-process.test.ts. The server is another process either way.
 */
function loadAdmin(): Promise<RunAdmin> {
  adminInProcess ??= (async () => {
    // Before lib/ is loaded: its configuration is read from the environment.
    Object.assign(process.env, JSON.parse(process.env.E2E_SERVER_ENV ?? "{}") as Record<string, string>);
    return (await import("@/lib/cli/admin")).runAdmin;
  })();
  return adminInProcess;
}

/** Runs an admin CLI command against the test server's database; returns its JSON answer (throws on an error answer). */
export async function admin(...args: string[]): Promise<Record<string, unknown>> {
  const runAdmin = await loadAdmin();
  const { exitCode, output } = await runAdmin(args, { log: (message) => console.error(message) });
  if (exitCode !== 0) throw new Error(`admin ${args.join(" ")}: ${JSON.stringify(output)}`);
  return output as Record<string, unknown>;
}

/**
 * Makes the user's sessions' last confirmation an hour old (docs/security.md), as for a session
 * left open somewhere: on the server's database, through the same in-process setup as `admin`.
 */
export async function staleConfirmation(username: string): Promise<void> {
  await loadAdmin();
  const { db } = await import("@/lib/db/client");
  const user = await db().user.findUniqueOrThrow({ where: { username: username.toLowerCase() }, select: { id: true } });
  await db().relaySession.updateMany({ where: { userId: user.id }, data: { confirmedAt: new Date(Date.now() - 60 * 60 * 1000) } });
}

let counter = 0;
export const uniqueName = (prefix: string): string => `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}`;

export interface E2EUser {
  username: string;
  password: string;
  apiKey: string;
}

/** A user with a password and an app key with gallery access. */
export async function createUser(): Promise<E2EUser> {
  const username = uniqueName("e2e");
  const password = "correct horse battery";
  await admin("user", "create", "--username", username, "--password", password);
  const app = await admin("app", "create", "--user", username, "--name", "E2E", "--gallery-access");
  return { username, password, apiKey: String(app.key) };
}

export interface UploadedPost {
  code: string;
  url: string;
  files: { url: string; mime_type: string; width: number; height: number; thumbnail_url: string | null }[];
}

/** POST /api/upload with one file; returns the post. */
export async function upload(user: E2EUser, path: string, type: string, headers: Record<string, string> = {}): Promise<UploadedPost> {
  const form = new FormData();
  form.append("file", new Blob([await readFile(path)], { type }), basename(path));
  const response = await fetch(`${baseUrl()}/api/upload`, {
    method: "POST",
    headers: { "api-key": user.apiKey, priority: "false", "post-privacy": "public", ...headers },
    body: form,
  });
  const body = (await response.json()) as { post?: UploadedPost };
  if (response.status !== 200 || !body.post) throw new Error(`upload failed: ${response.status} ${JSON.stringify(body)}`);
  return body.post;
}

/** PATCH /api/posts/{code}. */
export async function updatePost(user: E2EUser, code: string, changes: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${baseUrl()}/api/posts/${code}`, {
    method: "PATCH",
    headers: { "api-key": user.apiKey, "content-type": "application/json" },
    body: JSON.stringify(changes),
  });
  if (response.status !== 200) throw new Error(`update failed: ${response.status} ${await response.text()}`);
}

/** Signs in through the /signin form. */
export async function signIn(page: Page, login: string, password: string): Promise<void> {
  await page.goto("/signin");
  await page.getByLabel("Username or email").fill(login);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((url) => !url.pathname.startsWith("/signin"));
}

/** Screenshots for people to look at, with E2E_SCREENSHOTS=1: test-results/screenshots/<name>-<width>.png. */
export async function screenshots(page: Page, name: string): Promise<void> {
  // Opt-in (E2E_SCREENSHOTS=1): two full-page captures after the network settles, at every
  // call, took dashboard.spec.ts from 15.6 to 19.1 s, and only a person looking reads them.
  if (process.env.E2E_SCREENSHOTS !== "1") return;
  for (const [label, width, height] of [
    ["phone", 390, 844],
    ["desktop", 1280, 800],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.waitForLoadState("networkidle");
    await page.screenshot({ path: `test-results/screenshots/${name}-${label}.png`, fullPage: true });
  }
}

/**
 * Collects what shows that a page does not work under its Content-Security-Policy: every
 * `securitypolicyviolation` event (reported through the console by an init script), the
 * browser's own "Refused to …" console errors, and uncaught page errors. Call before the
 * first navigation; read the array at the end.
 */
export async function watchPolicy(page: Page): Promise<string[]> {
  const problems: string[] = [];
  page.on("console", (message) => {
    const text = message.text();
    if (/CSP violation|Content Security Policy|Refused to/i.test(text)) problems.push(`${page.url()}: ${text}`);
  });
  page.on("pageerror", (error) => problems.push(`${page.url()}: ${error.message}`));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      console.error(
        `CSP violation: ${event.violatedDirective} blocked ${event.blockedURI || "inline"} (${event.sourceFile}:${event.lineNumber})`,
      );
    });
  });
  return problems;
}
