/**
 * Expiry, view limits and share-page passwords in a real browser (docs/expiry.md,
 * docs/share-passwords.md): the dashboard editor's fields, the password form on the share
 * page (wrong, then right: the media loads through signed links), and a view-limited page
 * that shows its last view and then answers 404.
 */
import { expect, test, type Page } from "@playwright/test";
import { fixture } from "../support/media";
import { baseUrl, createUser, screenshots, signIn, upload, type E2EUser, type UploadedPost } from "./support";

test.describe.configure({ mode: "serial" });

let owner: E2EUser;
let post: UploadedPost;

test.beforeAll(async () => {
  owner = await createUser();
  post = await upload(owner, await fixture("pngPlain"), "image/png");
});

async function ownPost(code: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${baseUrl()}/api/posts/${code}`, { headers: { "api-key": owner.apiKey } });
  return ((await response.json()) as { post: Record<string, unknown> }).post;
}

async function imageLoaded(page: Page): Promise<string> {
  const img = page.locator("article img").first();
  await expect(img).toBeVisible();
  await expect.poll(() => img.evaluate((node) => (node as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
  return (await img.getAttribute("src")) ?? "";
}

test("dashboard: set an expiry, a view limit and a share-page password; clear the limit", async ({ page }) => {
  await signIn(page, owner.username, owner.password);
  await page.goto("/dashboard");
  const item = page.getByRole("list", { name: "Posts" }).locator(`li[data-code="${post.code}"]`);
  await item.getByRole("button", { name: /^Edit / }).click();
  const editor = page.getByRole("dialog");
  await editor.getByLabel("Expires").fill("2035-06-01T12:00");
  await editor.getByLabel("View limit").fill("5");
  await editor.getByRole("button", { name: "Save changes" }).click();
  await expect(editor.getByRole("status")).toHaveText("Saved.");
  let stored = await ownPost(post.code);
  expect(new Date(String(stored.expires_at)).getFullYear()).toBe(2035);
  expect(stored.max_views).toBe(5);

  await editor.getByLabel(/^Share-page password/).fill("open sesame");
  await editor.getByRole("button", { name: "Set password" }).click();
  await expect(editor.getByRole("status")).toHaveText("Password set.");
  await screenshots(page, "dashboard-expiry-editor");
  expect((await ownPost(post.code)).password_protected).toBe(true);

  await editor.getByLabel("View limit").fill("");
  await editor.getByLabel("Expires").fill("");
  await editor.getByRole("button", { name: "Save changes" }).click();
  await expect(editor.getByRole("status")).toHaveText("Saved.");
  stored = await ownPost(post.code);
  expect(stored.max_views).toBeNull();
  expect(stored.expires_at).toBeNull();
  expect(stored.password_protected).toBe(true);
});

test("share page: the password form, a wrong password, then the media through signed links", async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const response = await page.goto(post.url);
  expect(response?.status()).toBe(200);
  await expect(page.getByRole("heading", { name: "This post is password-protected" })).toBeVisible();
  await expect(page.locator("article img")).toHaveCount(0);
  expect(await page.content()).not.toContain(`/cdn/${post.code}/`);
  // The bare file link serves nothing.
  expect((await fetch(post.files[0].url.split("?")[0])).status).toBe(403);

  await page.getByLabel("Password").fill("not it");
  await page.getByRole("button", { name: "Open" }).click();
  await expect(page.locator("form").getByRole("alert")).toHaveText("That password is not right.");
  await screenshots(page, "share-password-form");

  await page.getByLabel("Password").fill("open sesame");
  await page.getByRole("button", { name: "Open" }).click();
  const src = await imageLoaded(page);
  expect(src).toMatch(/[?&]sig=/);
  // The unlock is this browser's only: another one still gets the form.
  const stranger = await (await browser.newContext()).newPage();
  await stranger.goto(post.url);
  await expect(stranger.getByRole("heading", { name: "This post is password-protected" })).toBeVisible();
  await context.close();
});

test("share page: a signed-in visitor likes a password-protected post only while it is unlocked", async ({ browser }) => {
  const visitor = await createUser();
  const context = await browser.newContext();
  const page = await context.newPage();
  await signIn(page, visitor.username, visitor.password);
  await page.goto(post.url);
  await page.getByLabel("Password").fill("open sesame");
  await page.getByRole("button", { name: "Open" }).click();
  await imageLoaded(page);
  const like = page.getByTestId("engage").getByRole("button", { name: /\blikes?\b/ });
  await like.click();
  await expect(like).toHaveAttribute("aria-pressed", "true");
  await expect.poll(async () => (await ownPost(post.code)).like_count).toBe(1);

  // Without the unlock cookie the page's own action refuses, as the API and Relay do.
  await context.clearCookies({ name: `mh_unlock_${post.code}` });
  await like.click();
  await expect(page.getByTestId("engage").getByText("No such post.")).toBeVisible();
  await expect(like).toHaveAttribute("aria-pressed", "true");
  expect((await ownPost(post.code)).like_count).toBe(1);
  await context.close();
});

test("share page: password attempts are limited per address and post; past the limit even the right one is refused", async ({
  browser,
}) => {
  const page = await (await browser.newContext()).newPage();
  await page.goto(post.url);
  // Attempts above were spent from this address too; twelve more pass the limit of ten either way.
  for (let i = 0; i < 12; i++) {
    await page.getByLabel("Password").fill(`guess ${i}`);
    await page.getByRole("button", { name: "Open" }).click();
    // React resets the form once the action (and its redirect) completed.
    await expect(page.getByLabel("Password")).toHaveValue("");
    await expect(page.locator("form").getByRole("alert")).toBeVisible();
  }
  await expect(page.locator("form").getByRole("alert")).toHaveText("Too many attempts; try again in a few minutes.");
  await page.getByLabel("Password").fill("open sesame");
  await page.getByRole("button", { name: "Open" }).click();
  await expect(page.locator("form").getByRole("alert")).toHaveText("Too many attempts; try again in a few minutes.");
  await expect(page.locator("article img")).toHaveCount(0);
});

test("share page of a view-limited post: the last view shows the media, the next is 404", async ({ browser }) => {
  const limited = await upload(owner, await fixture("pngPlain"), "image/png", { "post-privacy": "unlisted", "max-views": "1" });
  const first = await (await browser.newContext()).newPage();
  expect((await first.goto(limited.url))?.status()).toBe(200);
  expect(await imageLoaded(first)).toMatch(/[?&]sig=/);
  const second = await (await browser.newContext()).newPage();
  expect((await second.goto(limited.url))?.status()).toBe(404);
});
