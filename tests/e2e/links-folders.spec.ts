/**
 * Short links and folders in a real Chromium against the real server (docs/short-links.md,
 * docs/folders.md): /s/{code} redirects, a public folder's page /f/{code}, and the
 * dashboard's Links and Folders pages, at phone (390 px) and desktop (1280 px) widths.
 */
import { expect, type Page, test } from "@playwright/test";
import { fixture } from "../support/media";
import { baseUrl, createUser, type E2EUser, signIn, upload } from "./support";

const WIDTHS = [390, 1280] as const;

async function apiCall<T>(user: E2EUser, path: string, method: string, body?: unknown): Promise<T> {
  const response = await fetch(`${baseUrl()}/api${path}`, {
    method,
    headers: { "api-key": user.apiKey, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** Nothing wider than the viewport (no sideways scrolling on a phone). */
async function fitsWidth(page: Page): Promise<void> {
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
}

let user: E2EUser;
let folder: { id: string; code: string };
let publicCode: string;

test.beforeAll(async () => {
  user = await createUser();
  const png = await fixture("png");
  // The upload's folder header creates the folder (private) and files both posts into it.
  publicCode = (await upload(user, png, "image/png", { folder: "Trip" })).code;
  await upload(user, png, "image/png", { folder: "trip", "post-privacy": "private" });
  const { folders } = await apiCall<{ folders: { id: string; code: string; name: string }[] }>(user, "/folders", "GET");
  expect(folders.map((f) => f.name)).toEqual(["Trip"]);
  folder = folders[0];
  await apiCall(user, `/folders/${folder.id}`, "PATCH", { privacy: "public" });
});

test("/f/{code}: the public posts' renditions, OpenGraph tags in <head>, no private post", async ({ page }) => {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto(`/f/${folder.code}`);
    await expect(page.getByRole("heading", { name: "Trip" })).toBeVisible();
    const posts = page.getByRole("list", { name: "Posts" }).getByRole("listitem");
    await expect(posts).toHaveCount(1);
    await expect(posts.first().getByRole("link")).toHaveAttribute("href", `/p/${publicCode}`);
    const img = posts.first().locator("img");
    await expect(img).toHaveAttribute("src", /\/cdn\/.+\/r\/\d+\//);
    await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0)).toBe(true);
    await fitsWidth(page);
  }
  await expect(page.locator('head meta[property="og:title"]')).toHaveAttribute("content", new RegExp(`^Trip \\(@${user.username}\\)`));
  await expect(page.locator('head meta[property="og:image"]')).toHaveAttribute("content", /\/cdn\//);

  // A private folder is a 404.
  await apiCall(user, `/folders/${folder.id}`, "PATCH", { privacy: "private" });
  expect((await page.goto(`/f/${folder.code}`))?.status()).toBe(404);
  await apiCall(user, `/folders/${folder.id}`, "PATCH", { privacy: "public" });
});

test("/s/{code}: 302 to the target, the browser follows it; 404 once used up", async ({ page, request }) => {
  const target = `${baseUrl()}/f/${folder.code}`;
  const { link } = await apiCall<{ link: { code: string; short_url: string } }>(user, "/links", "POST", { url: target, max_clicks: 2 });
  const first = await request.get(`/s/${link.code}`, { maxRedirects: 0 });
  expect(first.status()).toBe(302);
  expect(first.headers().location).toBe(target);
  await page.goto(`/s/${link.code}`);
  await expect(page).toHaveURL(target);
  await expect(page.getByRole("heading", { name: "Trip" })).toBeVisible();
  const gone = await request.get(`/s/${link.code}`, { maxRedirects: 0 });
  expect(gone.status()).toBe(404);
});

test("dashboard: Links shortens, lists and deletes; Folders lists, filters the gallery and removes a post", async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page, user.username, user.password);
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto("/dashboard/links");
    await expect(page.getByRole("heading", { name: "Short links" })).toBeVisible();
    const form = page.getByRole("form", { name: "Shorten a URL" });
    await form.getByLabel("URL to shorten").fill(`https://example.com/e2e/${width}`);
    await form.getByRole("button", { name: "Shorten" }).click();
    const short = (await page.getByTestId("new-short-url").textContent())?.trim() ?? "";
    expect(short).toMatch(/\/s\/[A-Za-z0-9]{7}$/);
    const row = page
      .getByRole("list", { name: "Short links" })
      .getByRole("listitem")
      .filter({ hasText: `https://example.com/e2e/${width}` });
    await expect(row).toBeVisible();
    await fitsWidth(page);
    page.once("dialog", (dialog) => void dialog.accept());
    await row.getByRole("button", { name: `Delete ${short}` }).click();
    await expect(row).toHaveCount(0);
  }

  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto("/dashboard/folders");
    const card = page.locator("[data-folder='Trip']");
    await expect(card).toContainText("2 posts");
    await expect(card).toContainText("public");
    await fitsWidth(page);
  }
  await page.locator("[data-folder='Trip']").getByRole("link", { name: "Show posts" }).click();
  await expect(page).toHaveURL(/\/dashboard\?folder=/);
  const posts = page.getByRole("list", { name: "Posts" }).getByRole("listitem");
  await expect(posts).toHaveCount(2);
  await posts.first().getByRole("checkbox").check();
  await page.getByRole("button", { name: "Remove from folder" }).click();
  await expect(page.getByRole("status").filter({ hasText: "removed from Trip" })).toBeVisible();
  await expect(posts).toHaveCount(1);
});
