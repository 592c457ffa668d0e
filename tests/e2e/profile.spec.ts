/**
 * Public profiles in a real browser: reached from a share page's author link, OpenGraph
 * tags for unfurlers, follow for a signed-in visitor (kept after a reload), and a
 * suspended user's page that shows nothing but the notice.
 */
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import ogs from "open-graph-scraper";
import sharp from "sharp";
import { admin, baseUrl, createUser, screenshots, signIn, updatePost, upload, type E2EUser, type UploadedPost } from "./support";

let owner: E2EUser;
let visitor: E2EUser;
let post: UploadedPost;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  [owner, visitor] = await Promise.all([createUser(), createUser()]);
  const path = join(tmpdir(), `e2e-profile-${process.pid}.png`);
  await writeFile(
    path,
    await sharp({ create: { width: 640, height: 480, channels: 3, background: "#3a7" } })
      .png()
      .toBuffer(),
  );
  post = await upload(owner, path, "image/png");
  await updatePost(owner, post.code, { title: "Green square" });
});

test("the share page links its author's profile, which lists the public post", async ({ page }) => {
  await page.goto(`/p/${post.code}`);
  await page.getByRole("link", { name: owner.username }).first().click();
  await page.waitForURL(`**/u/${owner.username}`);
  await expect(page.getByRole("heading", { level: 1 })).toContainText(owner.username);
  await expect(page.getByText("1 upload", { exact: true })).toBeVisible();
  await expect(page.getByRole("region", { name: "Posts" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Green square" })).toBeVisible();
  // Signed out: no follow button, an invitation to sign in instead.
  await expect(page.getByRole("button", { name: "Follow" })).toHaveCount(0);
  await expect(page.getByText("to follow.")).toBeVisible();
  await screenshots(page, "profile");
});

test("unfurlers get OpenGraph profile tags", async () => {
  const response = await fetch(`${baseUrl()}/u/${owner.username}`, {
    headers: { "user-agent": "Mozilla/5.0 (compatible; Discordbot/2.0)" },
  });
  expect(response.status).toBe(200);
  const { result } = await ogs({ html: await response.text() });
  expect(result.ogType).toBe("profile");
  expect(result.ogTitle).toContain(`@${owner.username}`);
  expect(result.ogImage?.[0]?.url).toMatch(/^https?:\/\//);
});

test("a signed-in visitor follows and unfollows; the state survives a reload", async ({ page }) => {
  await signIn(page, visitor.username, visitor.password);
  await page.goto(`/u/${owner.username}`);
  await page.getByRole("button", { name: "Follow" }).click();
  await expect(page.getByRole("button", { name: "Following" })).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByTestId("follower-count")).toHaveText("1 follower");
  await page.reload();
  await expect(page.getByRole("button", { name: "Following" })).toBeVisible();
  await page.getByRole("button", { name: "Following" }).click();
  await expect(page.getByRole("button", { name: "Follow" })).toBeVisible();
  await expect(page.getByTestId("follower-count")).toHaveText("0 followers");
  await page.context().clearCookies();
});

test("a suspended user's profile says so and shows nothing else; an unknown name is 404", async ({ page }) => {
  const suspended = await createUser();
  await admin("user", "suspend", "--user", suspended.username);
  await page.goto(`/u/${suspended.username}`);
  await expect(page.getByText("This account is suspended.")).toBeVisible();
  await expect(page.getByRole("region", { name: "Posts" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Follow" })).toHaveCount(0);
  const missing = await fetch(`${baseUrl()}/u/no-such-user-here`);
  expect(missing.status).toBe(404);
});

test("a signed-in visitor likes, comments and reports on the share page; the report limit is Relay's", async ({ page }) => {
  await signIn(page, visitor.username, visitor.password);
  await page.goto(`/p/${post.code}`);
  const engage = page.getByTestId("engage");
  const like = engage.getByRole("button", { name: /\blikes?\b/ });
  await expect(like).toHaveAttribute("aria-pressed", "false");
  await like.click();
  await expect(like).toHaveAttribute("aria-pressed", "true");
  await engage.getByRole("button", { name: /\bcomments?\b/ }).click();
  await engage.getByLabel("Write a comment").fill("Nice green");
  await engage.getByRole("button", { name: "Post" }).click();
  await expect(engage.getByText("Nice green")).toBeVisible();
  await engage.getByRole("button", { name: "Report" }).click();
  await engage.getByLabel(/What is wrong/).fill("spam test");
  await engage.getByRole("button", { name: "Send report" }).click();
  await expect(engage.getByRole("status")).toContainText("Reported");
  await screenshots(page, "share-signed-in");

  const { reports } = (await admin("report", "list", "--open")) as {
    reports: { reason: string; reporter: { username: string }; target: { code?: string } }[];
  };
  expect(reports.some((r) => r.reason === "spam test" && r.reporter.username === visitor.username && r.target.code === post.code)).toBe(
    true,
  );

  // The web report counted against the same per-account bucket as the API's (3 a minute).
  const viaApi = () =>
    fetch(`${baseUrl()}/api/posts/${post.code}/report`, {
      method: "POST",
      headers: { "api-key": visitor.apiKey, "content-type": "application/json" },
      body: "{}",
    });
  expect((await viaApi()).status).toBe(200);
  expect((await viaApi()).status).toBe(200);
  expect((await viaApi()).status).toBe(429);

  // The owner sees no report button on their own post.
  await page.context().clearCookies();
  await signIn(page, owner.username, owner.password);
  await page.goto(`/p/${post.code}`);
  await expect(page.getByTestId("engage").getByRole("button", { name: /\blikes?\b/ })).toContainText("1");
  await expect(page.getByRole("button", { name: "Report" })).toHaveCount(0);
  await page.context().clearCookies();
});
