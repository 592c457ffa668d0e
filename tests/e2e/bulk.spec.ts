/**
 * Bulk actions on the dashboard (docs/bulk-actions.md), in a real Chromium against the real
 * server with its real limits: 30 files dropped at once all upload, through the upload
 * bucket's 429 (20 per 30 s) and under the abuse safeguard (more than 8 in a second
 * suspends), with one progress display; then the whole gallery is re-privacied and
 * deleted with one request each, past the 20 the one-post endpoints allow.
 */
import { expect, test, type Page } from "@playwright/test";
import sharp from "sharp";
import { baseUrl, createUser, signIn, type E2EUser } from "./support";

const FILES = 30;

/** A small PNG of its own noise, so no two files are the same. */
async function png(seed: number): Promise<Buffer> {
  const width = 24;
  const pixels = Buffer.alloc(width * width * 3);
  let x = seed + 1;
  for (let i = 0; i < pixels.length; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    pixels[i] = x >> 16;
  }
  return sharp(pixels, { raw: { width, height: width, channels: 3 } })
    .png()
    .toBuffer();
}

/** Drops files on the dashboard's drop zone as a real drag and drop delivers them. */
async function dropFiles(page: Page, files: { name: string; buffer: Buffer }[]): Promise<void> {
  const payload = files.map((f) => ({ name: f.name, data: f.buffer.toString("base64") }));
  const dataTransfer = await page.evaluateHandle((items) => {
    const transfer = new DataTransfer();
    for (const item of items) {
      const bytes = Uint8Array.from(atob(item.data), (c) => c.charCodeAt(0));
      transfer.items.add(new File([bytes], item.name, { type: "image/png" }));
    }
    return transfer;
  }, payload);
  await page.getByTestId("dropzone").dispatchEvent("drop", { dataTransfer });
}

async function ownPosts(user: E2EUser): Promise<{ code: string; privacy: string }[]> {
  const response = await fetch(`${baseUrl()}/api/posts?limit=100`, { headers: { "api-key": user.apiKey } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { posts: { code: string; privacy: string }[] }).posts;
}

/** Requests to the post endpoints, as "METHOD /path". */
function watchPostRequests(page: Page): string[] {
  const seen: string[] = [];
  page.on("request", (request) => {
    const path = new URL(request.url()).pathname;
    if (path.startsWith("/api/posts/")) seen.push(`${request.method()} ${path}`);
  });
  return seen;
}

test("bulk: 30 dropped files upload through the rate limit; privacy and delete of all in one request each", async ({ page }) => {
  test.setTimeout(240_000);
  const user = await createUser();
  await signIn(page, user.username, user.password);
  await page.goto("/dashboard");

  const uploadStatuses: number[] = [];
  page.on("response", (response) => {
    if (new URL(response.url()).pathname === "/api/upload") uploadStatuses.push(response.status());
  });
  const files = await Promise.all(Array.from({ length: FILES }, async (_, i) => ({ name: `drop-${i}.png`, buffer: await png(i) })));
  await dropFiles(page, files);

  const summary = page.getByTestId("upload-summary");
  // The 21st upload within 30 s is refused; the queue says so and waits, it does not fail.
  await expect(summary).toContainText("paused by the rate limit", { timeout: 60_000 });
  await expect(page.getByTestId("upload-count")).toHaveText(`${FILES} of ${FILES} files uploaded`, { timeout: 120_000 });
  await expect(page.locator("[data-upload-state=failed]")).toHaveCount(0);
  await expect(page.getByRole("progressbar", { name: "Progress of all uploads" })).toHaveAttribute(
    "value",
    String(files.reduce((n, f) => n + f.buffer.length, 0)),
  );
  expect(uploadStatuses.filter((s) => s === 429).length).toBeGreaterThan(0);
  expect(uploadStatuses.filter((s) => s === 200)).toHaveLength(FILES);
  expect(uploadStatuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
  // Not suspended by the burst safeguard (a suspended account's listing is 403), and every file is a post.
  const uploaded = await ownPosts(user);
  expect(uploaded).toHaveLength(FILES);
  expect(new Set(uploaded.map((p) => p.privacy))).toEqual(new Set(["unlisted"]));

  const posts = page.getByRole("list", { name: "Posts" });
  await expect(posts.locator("li")).toHaveCount(FILES);
  const requests = watchPostRequests(page);

  // Privacy of all 30 in one request.
  await posts.locator("li").first().getByRole("checkbox").check();
  await page.getByRole("button", { name: "Select all" }).click();
  await expect(page.getByText(`${FILES} selected`)).toBeVisible();
  await page.getByLabel("New privacy of the selected posts").selectOption("public");
  await page.getByRole("button", { name: "Set privacy" }).click();
  await expect(page.getByRole("status").filter({ hasText: "set to public" })).toHaveText(`${FILES} posts set to public.`);
  expect(requests).toEqual(["POST /api/posts/batch"]);
  expect(new Set((await ownPosts(user)).map((p) => p.privacy))).toEqual(new Set(["public"]));

  // Delete all 30 in one request (the one-post endpoint would refuse past 20 in 30 s).
  requests.length = 0;
  await posts.locator("li").first().getByRole("checkbox").check();
  await page.getByRole("button", { name: "Select all" }).click();
  page.once("dialog", (dialog) => void dialog.accept());
  await page.getByRole("button", { name: "Delete selected" }).click();
  await expect(page.getByRole("status").filter({ hasText: "deleted" })).toHaveText(`${FILES} posts deleted.`);
  expect(requests).toEqual(["POST /api/posts/batch"]);
  await expect(posts.locator("li")).toHaveCount(0);
  expect(await ownPosts(user)).toEqual([]);
});
