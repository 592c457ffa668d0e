/**
 * Issue 40 §2 and §5 in a real Chromium against the real server, at phone (390 px) and
 * desktop (1280 px) widths: the embed settings' live preview follows what is typed, saving
 * it changes the share page's unfurl tags (docs/embeds.md); the dashboard's "Upload from a
 * URL" fetches a file from a local origin (allowed by the e2e server's
 * WEBHOOK_ALLOW_PRIVATE=127.0.0.1) into a post, and shows a refusal in words
 * (docs/url-uploads.md).
 */
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, type Locator, type Page, test } from "@playwright/test";
import { fixture } from "../support/media";
import { createUser, type E2EUser, screenshots, signIn, upload } from "./support";

const WIDTHS = [390, 1280] as const;

/** The part under test lies within the viewport (no sideways scrolling to reach it on a phone). */
async function fitsWidth(page: Page, part: Locator): Promise<void> {
  const box = await part.boundingBox();
  const width = page.viewportSize()?.width ?? 0;
  expect(box).not.toBeNull();
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width).toBeLessThanOrEqual(width);
  expect(await part.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
}

let user: E2EUser;
let origin: Server;
let originUrl: string;

test.beforeAll(async () => {
  user = await createUser();
  const png = await readFile(await fixture("png"));
  origin = createServer((req, res) => {
    if (req.url === "/picture") res.writeHead(200, { "content-type": "application/octet-stream" }).end(png);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve));
  originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  await new Promise((resolve) => origin.close(resolve));
});

test("embed settings: the preview follows the fields, and the share page unfurls with what was saved", async ({ page }) => {
  const post = await upload(user, await fixture("png"), "image/png", { "post-privacy": "unlisted" });
  await signIn(page, user.username, user.password);
  await page.goto("/dashboard/settings");
  const embeds = page.getByRole("region", { name: "Embeds" });
  const preview = page.getByTestId("embed-preview");
  // Defaults first: the operator's site name, the sample's name, the account's name.
  await expect(preview.locator('[data-part="site"]')).toHaveText("Mediahost");
  await expect(preview.locator('[data-part="title"]')).toHaveText("holiday.png");
  await expect(preview.locator('[data-part="author"]')).toHaveText(user.username);

  await embeds.getByLabel("Title").fill("{file.name} ({file.size})");
  await embeds.getByLabel("Description").fill("{post.views} views · {file.dimensions}");
  await embeds.getByLabel("Site name").fill("{user.name}'s shots");
  await embeds.getByLabel("Author line").fill("by {user.name}");
  await embeds.getByLabel("My own colour").check();
  await embeds.getByLabel("Embed colour").fill("#ff8800");
  await expect(preview.locator('[data-part="title"]')).toHaveText("holiday.png (1.5 MB)");
  await expect(preview.locator('[data-part="description"]')).toHaveText("42 views · 1920×1080");
  await expect(preview.locator('[data-part="site"]')).toHaveText(`${user.username}'s shots`);
  await expect(preview.locator('[data-part="author"]')).toHaveText(`by ${user.username}`);
  await expect(preview).toHaveCSS("border-left-color", "rgb(255, 136, 0)");
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await expect(preview).toBeVisible();
    await fitsWidth(page, embeds);
    await fitsWidth(page, preview);
  }
  await embeds.getByRole("button", { name: "Save embed" }).click();
  await expect(embeds.getByRole("status")).toHaveText("Saved.");
  await embeds.scrollIntoViewIfNeeded();
  await screenshots(page, "embed-settings");

  // The share page's tags, as an unfurler reads them.
  await page.goto(`/p/${post.code}`);
  await expect(page.locator('head meta[property="og:title"]')).toHaveAttribute("content", /^png\.png \(\d+(\.\d)? (B|KB)\)$/);
  await expect(page.locator('head meta[property="og:site_name"]')).toHaveAttribute("content", `${user.username}'s shots`);
  await expect(page.locator('head meta[name="theme-color"]')).toHaveAttribute("content", "#ff8800");
});

test("upload from a URL in the dashboard: the file becomes a post; a refused URL says why", async ({ page }) => {
  await signIn(page, user.username, user.password);
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto("/dashboard");
    const field = page.getByLabel("Upload from a URL");
    await field.fill(`${originUrl}/picture`);
    await page.getByRole("button", { name: "Fetch" }).click();
    const row = page.getByRole("list", { name: "Uploads" }).getByRole("listitem").first();
    await expect(row).toHaveAttribute("data-upload-state", "done", { timeout: 30_000 });
    await expect(row.getByRole("link", { name: "Open share page" })).toHaveAttribute("href", /\/p\//);
    await fitsWidth(page, page.getByRole("region", { name: "Upload" }));

    await field.fill("http://169.254.169.254/latest/meta-data");
    await page.getByRole("button", { name: "Fetch" }).click();
    const refused = page.getByRole("list", { name: "Uploads" }).getByRole("listitem").first();
    await expect(refused).toHaveAttribute("data-upload-state", "failed");
    await expect(refused.getByRole("alert")).toContainText("private, loopback or link-local");
    await fitsWidth(page, page.getByRole("region", { name: "Upload" }));
  }
  await screenshots(page, "url-upload");
});
