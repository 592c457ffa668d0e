/**
 * Every page works under its Content-Security-Policy (docs/security-headers.md) in a real
 * Chromium: no violation is reported and Next's scripts run (client navigation, forms), signed
 * out and signed in. A page on another origin cannot frame the dashboard or the sign-in
 * page; it can frame a share page (X's player card does).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test, type Page } from "@playwright/test";
import { fixture } from "../support/media";
import { admin, baseUrl, createUser, signIn, upload, watchPolicy, type E2EUser } from "./support";

let user: E2EUser;
let imageCode: string;
let videoCode: string;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(120_000);
  user = await createUser();
  // An admin, so the console's pages are checked too.
  await admin("user", "role", "--user", user.username, "--role", "admin");
  imageCode = (await upload(user, await fixture("png"), "image/png")).code;
  videoCode = (await upload(user, await fixture("mp4"), "video/mp4")).code;
});

/**
 * Opens a page and waits until Next's client runtime has started (it sets window.next). A
 * share page, discover or a profile signed out has no runtime (docs/share-pages.md,
 * "Scripts"): its one script, which a refused nonce would show in the watcher, marks <html>.
 * So does the dashboard's own bundle on a full load of the gallery or settings once hydrated
 * (docs/dashboard-scripts.md): its module scripts and their chunks run under the nonce too.
 */
async function open(page: Page, path: string): Promise<void> {
  await page.goto(path);
  await page.waitForLoadState("networkidle");
  await page.waitForFunction(
    () => {
      const marks = document.documentElement.dataset;
      return "next" in window || marks.islands === "ready" || "islandHydrated" in marks;
    },
    undefined,
    { timeout: 15_000 },
  );
}

test("every page works under the policy, signed out", async ({ page }) => {
  const problems = await watchPolicy(page);
  for (const path of [
    "/",
    "/discover",
    "/discover/gifs",
    "/register",
    `/p/${imageCode}`,
    `/p/${videoCode}`,
    `/u/${user.username}`,
    "/no-such-page",
  ]) {
    await open(page, path);
  }
  // A client-side form: the wrong password is answered on the page, by our script.
  await open(page, "/signin");
  await page.getByLabel("Username or email").fill(user.username);
  await page.getByLabel("Password").fill("not the password");
  await page.getByRole("button", { name: "Sign in" }).click();
  // A password check (scrypt, 128 MiB) takes seconds on a loaded machine: no 10 s default here.
  await expect(page.locator("#signin-error")).toHaveText("Wrong username, email or password.", { timeout: 60_000 });
  // Client navigation (React Server Component requests) under the policy.
  await page.getByRole("link", { name: "Discover" }).click();
  await expect(page).toHaveURL(/\/discover$/);
  await page.waitForLoadState("networkidle");
  expect(problems).toEqual([]);

  // The watcher does see what the policy refuses: markup injected with an inline handler.
  await page.evaluate(() => document.body.insertAdjacentHTML("beforeend", '<img src="/no-such-image" onerror="window.pwned = 1">'));
  // Two reports arrive, in either order: Chromium's own console line and the page's event.
  await expect.poll(() => problems.join("\n")).toMatch(/CSP violation: script-src/);
  expect(await page.evaluate(() => "pwned" in window)).toBe(false);
});

test("every page works under the policy, signed in", async ({ page }) => {
  // Sixteen pages, each to network idle and Next's runtime: more than the default minute on a loaded machine.
  test.setTimeout(150_000);
  const problems = await watchPolicy(page);
  await signIn(page, user.username, user.password);
  const adminPages = ["/admin", "/admin/users", "/admin/reports", "/admin/moderation", "/admin/invites", "/admin/links", "/admin/audit"];
  for (const path of [
    "/dashboard",
    "/dashboard/apps",
    "/dashboard/teams",
    "/dashboard/usage",
    "/dashboard/webhooks",
    "/dashboard/links",
    "/dashboard/folders",
    "/dashboard/settings",
    ...adminPages,
    "/discover",
    `/p/${videoCode}`,
    `/u/${user.username}`,
    "/signout",
  ]) {
    await open(page, path);
  }
  await open(page, "/dashboard");
  await page.getByRole("link", { name: "Apps" }).first().click();
  await expect(page).toHaveURL(/\/dashboard\/apps$/);
  await page.waitForLoadState("networkidle");
  expect(problems).toEqual([]);
});

test("another origin cannot frame the dashboard or sign-in, and can frame a share page", async ({ page }) => {
  const refusals: string[] = [];
  page.on("console", (message) => {
    if (/frame-ancestors/.test(message.text())) refusals.push(message.text());
  });
  // A page on another origin and site: a server of its own, reached as localhost while the
  // service is 127.0.0.1. (A page made up with page.route has no address, so Chromium's
  // Private Network Access rules would refuse every frame of it and prove nothing.)
  const html = `<!doctype html><title>framer</title>
    <iframe name="dashboard" src="${baseUrl()}/dashboard" width="600" height="400"></iframe>
    <iframe name="signin" src="${baseUrl()}/signin" width="600" height="400"></iframe>
    <iframe name="share" src="${baseUrl()}/p/${imageCode}" width="600" height="400"></iframe>`;
  const framer = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(html));
  await new Promise<void>((done) => framer.listen(0, "127.0.0.1", done));
  try {
    await page.goto(`http://localhost:${(framer.address() as AddressInfo).port}/`);
    const share = page.frameLocator('iframe[name="share"]');
    await expect(share.locator("main img").first()).toBeVisible();
    await expect.poll(() => refusals.length).toBeGreaterThanOrEqual(2);
    for (const name of ["dashboard", "signin"]) {
      const frame = page.frame({ name });
      expect(frame, name).not.toBeNull();
      // The refused frame holds the browser's error page, none of ours.
      expect(await frame!.locator("header, main, form").count(), name).toBe(0);
    }
    expect(refusals.join("\n")).toMatch(/frame-ancestors 'none'/);
  } finally {
    await new Promise((done) => framer.close(done));
  }
});
