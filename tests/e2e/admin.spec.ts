/**
 * The operator's console /admin (docs/admin.md) in a real Chromium against the real
 * server: every page and every action, once at a phone width and once at a desktop
 * width, with their effects checked from outside (CDN answers, the CLI's view of the
 * same rows); and the 404 that everyone but an admin gets for every /admin URL and for
 * the console's server actions.
 */
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Locator, type Page } from "@playwright/test";
import sharp from "sharp";
import { admin, baseUrl, createUser, signIn, uniqueName, upload, type E2EUser, type UploadedPost } from "./support";

const PASSWORD = "admin console password";

async function sampleImage(seed: number): Promise<string> {
  const path = join(tmpdir(), `e2e-admin-${process.pid}-${seed}.png`);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="48"><rect width="64" height="48" fill="rgb(${seed % 255},80,160)"/></svg>`;
  await writeFile(path, await sharp(Buffer.from(svg)).png().toBuffer());
  return path;
}

async function makeAdmin(): Promise<string> {
  const username = uniqueName("boss");
  await admin("user", "create", "--username", username, "--password", PASSWORD);
  await admin("user", "role", "--user", username, "--role", "admin");
  return username;
}

async function report(reporter: E2EUser, path: string, reason: string): Promise<void> {
  const response = await fetch(`${baseUrl()}/api${path}`, {
    method: "POST",
    headers: { "api-key": reporter.apiKey, "content-type": "application/json" },
    body: JSON.stringify({ reason }),
  });
  expect(response.status, await response.text()).toBe(200);
}

const cdnStatus = async (post: UploadedPost): Promise<number> => (await fetch(post.files[0].url)).status;

/** The page fits the viewport: nothing forces sideways scrolling at phone width. */
async function expectNoSidewaysScroll(page: Page): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}

/** An <img> that the browser loaded and decoded. */
async function expectImageLoaded(images: Locator): Promise<void> {
  const image = images.first();
  await expect(image).toBeVisible();
  await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0);
}

async function notice(page: Page, text: string | RegExp): Promise<void> {
  await expect(page.locator('p[role="status"]')).toContainText(text);
}

for (const [width, height] of [
  [390, 844],
  [1280, 800],
] as const) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: { width, height } });

    test("every console page and action", async ({ page }) => {
      test.setTimeout(240_000);
      const boss = await makeAdmin();
      const author = await createUser();
      const reporter = await createUser();
      const reported = await upload(author, await sampleImage(1), "image/png");
      const held = await upload(author, await sampleImage(2), "image/png");
      const doomed = await upload(author, await sampleImage(3), "image/png");
      await admin("post", "moderate", "--code", held.code);
      await admin("post", "moderate", "--code", doomed.code);
      await report(reporter, `/posts/${reported.code}/report`, "spam post");
      const authorId = String((await admin("user", "plan", "--user", author.username, "--plan", "free")).id);
      await report(reporter, `/users/${authorId}/report`, "spam account");

      await signIn(page, boss, PASSWORD);

      // Overview, reached from the dashboard: the figures and the uploads chart (today has this test's uploads).
      await page.goto("/dashboard");
      await page.getByRole("link", { name: "Admin console" }).click();
      await expect(page).toHaveURL(/\/admin$/);
      await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
      for (const label of [
        "Users",
        "Posts",
        "Files",
        "Bytes stored",
        "Media jobs waiting",
        "Media jobs running",
        "Open reports",
        "Posts awaiting moderation",
      ]) {
        await expect(page.locator(`[data-stat="${label}"]`)).toBeVisible();
      }
      expect(Number((await page.locator('[data-stat="Open reports"]').textContent())?.replace(/,/g, ""))).toBeGreaterThanOrEqual(2);
      const today = new Date().toISOString().slice(0, 10);
      expect(Number(await page.locator(`rect[data-day="${today}"]`).getAttribute("data-uploads"))).toBeGreaterThanOrEqual(3);
      await expectNoSidewaysScroll(page);
      await page.screenshot({ path: `test-results/screenshots/admin-overview-${width}.png`, fullPage: true });

      // Users: search, open, and every lever.
      await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Users" }).click();
      await page.getByLabel("Search users by name").fill(author.username.toUpperCase());
      await page.getByRole("button", { name: "Search" }).click();
      await expect(page.locator("[data-user]")).toHaveCount(1);
      await expectNoSidewaysScroll(page);
      await page.getByRole("link", { name: author.username }).click();
      await expect(page.getByRole("heading", { name: author.username })).toBeVisible();
      await expect(page.locator(`[data-post="${reported.code}"]`)).toBeVisible();

      await page.getByLabel("Plan").selectOption("ultra");
      await page.getByRole("button", { name: "Set plan" }).click();
      await notice(page, "is now on ultra");
      await expect(page.getByLabel("Plan")).toHaveValue("ultra");

      await page.getByLabel("Weekly quota").fill("10GB");
      await page.getByRole("button", { name: "Set quota" }).click();
      await notice(page, "weekly quota is set");
      await expect(page.getByLabel("Weekly quota")).toHaveValue(String(10 * 1024 ** 3));
      await page.getByLabel("Weekly quota").fill("lots");
      await page.getByRole("button", { name: "Set quota" }).click();
      await expect(page.locator('p[role="alert"]')).toContainText("A quota is a number of bytes");

      await page.getByLabel("Priority minutes").fill("30");
      await page.getByRole("button", { name: "Set minutes" }).click();
      await notice(page, "has 30 priority minutes");

      await page.getByLabel("Role").selectOption("admin");
      await page.getByRole("button", { name: "Set role" }).click();
      await notice(page, "is now an admin");
      await page.getByLabel("Role").selectOption("user");
      await page.getByRole("button", { name: "Set role" }).click();
      await notice(page, "is now a user");

      await page.getByRole("button", { name: "Suspend" }).click();
      await notice(page, "is suspended");
      await expect(page.getByText(/Suspended since/)).toBeVisible();
      await page.getByRole("button", { name: "Unsuspend" }).click();
      await notice(page, "is no longer suspended");
      // A reset link is shown once in the page body, never in the URL (issue 39 §4).
      const beforeReset = page.url();
      await page.getByRole("button", { name: "Make a reset link" }).click();
      await expect(page.getByTestId("reset-link")).toContainText("/reset-password?token=");
      expect(page.url()).toBe(beforeReset);
      expect(page.url()).not.toContain("token");
      await expectNoSidewaysScroll(page);
      await page.screenshot({ path: `test-results/screenshots/admin-user-${width}.png`, fullPage: true });

      // Reports: previews served to the admin, moderate the post, resolve; suspend the user, dismiss.
      await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Reports" }).click();
      // Other tests' reports may wait in the same queue: these are this reporter's.
      const mine = page.locator("[data-report]").filter({ hasText: reporter.username });
      const postReport = mine.filter({ hasText: "spam post" });
      const userReport = mine.filter({ hasText: "spam account" });
      await expect(postReport).toContainText(reporter.username);
      await expectImageLoaded(postReport.locator("img"));
      await expectNoSidewaysScroll(page);
      await page.screenshot({ path: `test-results/screenshots/admin-reports-${width}.png`, fullPage: true });
      expect(await cdnStatus(reported)).toBe(200);
      await postReport.getByRole("button", { name: "Moderate post" }).click();
      await notice(page, `Post ${reported.code} is under moderation`);
      expect(await cdnStatus(reported)).toBe(403);
      await postReport.getByRole("button", { name: "Resolve" }).click();
      await notice(page, "Report resolved");
      await expect(postReport).toHaveCount(0);
      await userReport.getByRole("button", { name: `Suspend ${author.username}` }).click();
      await notice(page, "is suspended");
      await userReport.getByRole("button", { name: "Dismiss" }).click();
      await notice(page, "Report dismissed");
      await expect(userReport).toHaveCount(0);
      // The CLI sees the web's decisions on the same rows.
      const listed = (await admin("report", "list", "--limit", "1000")) as {
        reports: { reason: string; status: string; reporter: { username: string } }[];
      };
      const decided = listed.reports.filter((r) => r.reporter.username === reporter.username);
      expect(decided.map((r) => [r.reason, r.status]).sort()).toEqual([
        ["spam account", "dismissed"],
        ["spam post", "resolved"],
      ]);
      await admin("user", "unsuspend", "--user", author.username);

      // Moderation: previews for the admin only; release and delete.
      await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Moderation" }).click();
      await expect(page.locator(`[data-post="${held.code}"]`)).toBeVisible();
      await expectImageLoaded(page.locator(`[data-post="${held.code}"] img`));
      const previewUrl = await page.locator(`[data-post="${held.code}"] img`).first().getAttribute("src");
      expect((await fetch(`${baseUrl()}${previewUrl}`)).status).toBe(404);
      expect(await cdnStatus(held)).toBe(403);
      await expectNoSidewaysScroll(page);
      await page.screenshot({ path: `test-results/screenshots/admin-moderation-${width}.png`, fullPage: true });
      await page.getByRole("button", { name: `Release post ${held.code}` }).click();
      await notice(page, `Post ${held.code} is released`);
      await expect(page.locator(`[data-post="${held.code}"]`)).toHaveCount(0);
      expect(await cdnStatus(held)).toBe(200);
      const doomedRow = page.locator(`[data-post="${doomed.code}"]`);
      await doomedRow.getByText("Delete", { exact: true }).click();
      await doomedRow.getByRole("button", { name: `Delete ${doomed.code} for good` }).click();
      await notice(page, `Post ${doomed.code} is deleted`);
      await expect(doomedRow).toHaveCount(0);
      expect(await cdnStatus(doomed)).toBe(404);

      // Invites: create, list (also on the CLI), revoke.
      await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Invites" }).click();
      await page.getByLabel("Valid for (days)").fill("3");
      await page.getByRole("button", { name: "Create invite" }).click();
      await notice(page, /Invite .+ created/);
      const code = /Invite (\S+) created/.exec((await page.locator('p[role="status"]').textContent()) ?? "")![1];
      const row = page.locator(`[data-invite="${code}"]`);
      await expect(row).toHaveAttribute("data-status", "unused");
      await expect(row.getByTestId("invite-url")).toHaveText(`${baseUrl()}/register?invite=${code}`);
      const cliInvites = (await admin("invite", "list")) as { invites: { code: string; created_by: string }[] };
      expect(cliInvites.invites.find((i) => i.code === code)?.created_by).toBe(boss);
      await expectNoSidewaysScroll(page);
      await page.screenshot({ path: `test-results/screenshots/admin-invites-${width}.png`, fullPage: true });
      await row.getByText("Revoke", { exact: true }).click();
      await row.getByRole("button", { name: `Revoke ${code}` }).click();
      await notice(page, `Invite ${code} revoked`);
      await expect(row).toHaveCount(0);

      // Audit log: this admin's web actions and the CLI's, newest first.
      await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Audit log" }).click();
      for (const action of [
        "user.plan",
        "user.quota",
        "user.priority",
        "user.role",
        "user.suspend",
        "user.unsuspend",
        "post.moderate",
        "report.resolve",
        "report.dismiss",
        "post.release",
        "post.delete",
        "invite.create",
        "invite.revoke",
      ]) {
        await expect(page.locator(`[data-action="${action}"]`).filter({ hasText: boss }).first()).toBeVisible();
      }
      await expect(page.locator('[data-action="user.role"]').filter({ hasText: "(CLI)" }).first()).toBeVisible();
      await expect(page.locator("[data-action]").first()).toHaveAttribute("data-action", "invite.revoke");
      await expectNoSidewaysScroll(page);
      await page.screenshot({ path: `test-results/screenshots/admin-audit-${width}.png`, fullPage: true });
    });
  });
}

test("everyone but an active admin gets 404 for every /admin URL and every console action", async ({ page, browser }) => {
  // Four visitors, ten console URLs and five forms each: a page render apiece, while the other worker's server and browser share the two cores.
  test.setTimeout(360_000);
  const boss = await makeAdmin();
  const user = await createUser();
  const victim = await createUser();
  const post = await upload(victim, await sampleImage(9), "image/png");
  await admin("post", "moderate", "--code", post.code);
  const victimId = String((await admin("user", "plan", "--user", victim.username, "--plan", "free")).id);

  // The admin's pages carry the actions' ids (progressively enhanced forms).
  await signIn(page, boss, PASSWORD);
  await page.goto(`/admin/users/${victimId}`);
  const suspendId = await page.locator('form:has(button:text-is("Suspend")) input[name^="$ACTION_ID_"]').getAttribute("name");
  expect(suspendId).toBeTruthy();
  const urls = [
    "/admin",
    "/admin/users",
    `/admin/users/${victimId}`,
    "/admin/users?q=a&page=2",
    "/admin/reports",
    "/admin/moderation",
    "/admin/invites",
    "/admin/audit",
    `/admin/preview/${post.code}/0`,
    "/admin/no-such-page",
  ];
  for (const url of urls.slice(0, -2)) expect((await page.request.get(url)).status(), url).toBe(200);
  expect((await page.request.get(`/admin/preview/${post.code}/0`)).headers()["content-type"]).toBe("image/png");

  /** Posts the Suspend form as a browser without JavaScript would. */
  const postSuspend = (request: typeof page.request, path: string) =>
    request.post(path, {
      multipart: { [suspendId!]: "", user: victimId, back: "/admin/users" },
      headers: { origin: baseUrl() },
      maxRedirects: 0,
    });

  const signedOut = await browser.newContext();
  const member = await browser.newContext();
  const memberPage = await member.newPage();
  await signIn(memberPage, user.username, user.password);
  await memberPage.goto("/dashboard");
  await expect(memberPage.getByRole("heading", { name: "Gallery" })).toBeVisible();
  await expect(memberPage.getByRole("link", { name: "Admin console" })).toHaveCount(0);
  // A demoted admin loses the console at once, session and all.
  const demoted = await browser.newContext();
  const demotedName = await makeAdmin();
  const demotedPage = await demoted.newPage();
  await signIn(demotedPage, demotedName, PASSWORD);
  expect((await demoted.request.get("/admin")).status()).toBe(200);
  await admin("user", "role", "--user", demotedName, "--role", "user");
  // A suspended admin too.
  const suspended = await browser.newContext();
  const suspendedName = await makeAdmin();
  const suspendedPage = await suspended.newPage();
  await signIn(suspendedPage, suspendedName, PASSWORD);
  await admin("user", "suspend", "--user", suspendedName);

  for (const [who, context] of [
    ["signed out", signedOut],
    ["a user", member],
    ["a demoted admin", demoted],
    ["a suspended admin", suspended],
  ] as const) {
    for (const url of urls) {
      const response = await context.request.get(url, { maxRedirects: 0 });
      expect(response.status(), `${who}: GET ${url}`).toBe(404);
      expect(await response.text(), `${who}: GET ${url}`).not.toContain(victim.username);
    }
    // Posted where the console uses it, the action itself answers 404.
    for (const path of [`/admin/users/${victimId}`, "/admin/reports"]) {
      const response = await postSuspend(context.request, path);
      expect(response.status(), `${who}: action at ${path}`).toBe(404);
    }
    // Elsewhere Next refuses it before it runs (409 "Server Action unavailable").
    for (const path of ["/dashboard", "/", "/admin/users"]) {
      const response = await postSuspend(context.request, path);
      expect(response.status(), `${who}: action at ${path}`).toBeGreaterThanOrEqual(400);
    }
  }
  // Nothing happened: the victim still works, and no suspension was logged.
  expect((await fetch(`${baseUrl()}/api/users/@me`, { headers: { "api-key": victim.apiKey } })).status).toBe(200);
  const listed = (await admin("audit", "list", "--limit", "1000")) as { entries: { action: string; target: { id: string } }[] };
  expect(listed.entries.filter((e) => e.action === "user.suspend" && e.target.id === victimId)).toEqual([]);

  // The same form posted by the admin does suspend.
  const allowed = await postSuspend(page.request, `/admin/users/${victimId}`);
  expect(allowed.status()).toBeLessThan(400);
  expect((await fetch(`${baseUrl()}/api/users/@me`, { headers: { "api-key": victim.apiKey } })).status).toBe(403);
  await expect
    .poll(async () =>
      ((await admin("audit", "list", "--limit", "5")) as { entries: { action: string; target: { id: string } }[] }).entries.some(
        (e) => e.action === "user.suspend" && e.target.id === victimId,
      ),
    )
    .toBe(true);
  for (const context of [signedOut, member, demoted, suspended]) await context.close();
});
