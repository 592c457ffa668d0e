/**
 * Domains (issue 40 §1, docs/domains.md) in a real Chromium on a server of its own with
 * DOMAINS set, at phone (390 px) and desktop (1280 px) widths: Settings offers the domain of
 * new links and saves it (an upload then gets its share link on it), and Apps offers one
 * ShareX uploader per domain, which sends x-mediahost-domain.
 */
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { expect, type Locator, type Page, test } from "@playwright/test";
import { fixture } from "../support/media";
import { adminOn, createAndSignIn, startLocalhostServer, type LocalhostServer } from "./own-server";
import { screenshots } from "./support";

const WIDTHS = [390, 1280] as const;
let own: LocalhostServer;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(300_000);
  own = await startLocalhostServer({ DOMAINS: "img.example, cdn.example=files" });
});

test.afterAll(async () => {
  await own?.server.stop();
});

async function fitsWidth(page: Page, part: Locator): Promise<void> {
  const box = await part.boundingBox();
  expect(box).not.toBeNull();
  expect(box!.x + box!.width).toBeLessThanOrEqual(page.viewportSize()?.width ?? 0);
}

test("settings: the domain of new links is offered and saved; an upload's share link is then on it", async ({ page }) => {
  test.setTimeout(180_000);
  const username = await createAndSignIn(page, own);
  await page.goto(`${own.url}/dashboard/settings`);
  const select = page.getByLabel("Domain of new links");
  await expect(select.locator("option")).toHaveText([
    "Server default",
    "localhost (share pages, files, short links)",
    "img.example (share pages, files, short links)",
    "cdn.example (files)",
  ]);
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await select.scrollIntoViewIfNeeded();
    await fitsWidth(page, select);
  }
  await select.selectOption("img.example");
  await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();
  await screenshots(page, "domain-settings");

  const key = String((await adminOn(own, "app", "create", "--user", username, "--name", "Check")).key);
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(await readFile(await fixture("png")))], { type: "image/png" }), "a.png");
  const reply = await fetch(`${own.url}/api/upload`, { method: "POST", headers: { "api-key": key }, body: form });
  const { post } = (await reply.json()) as { post: { code: string; url: string } };
  expect(post.url).toBe(`https://img.example/p/${post.code}`);

  // Reloaded, the choice is still there.
  await page.reload();
  await expect(page.getByLabel("Domain of new links")).toHaveValue("img.example");
});

test("apps: one ShareX uploader per listed domain, which names it in x-mediahost-domain", async ({ page }) => {
  test.setTimeout(180_000);
  await createAndSignIn(page, own);
  await page.goto(`${own.url}/dashboard/apps`);
  await page.getByLabel("App name").fill("Shots");
  await page.getByRole("button", { name: "Create app" }).click();
  const forImg = page.getByRole("button", { name: "Download for img.example" });
  await expect(forImg).toBeVisible();
  await expect(page.getByRole("button", { name: "Download for cdn.example" })).toBeVisible();
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await forImg.scrollIntoViewIfNeeded();
    await fitsWidth(page, forImg);
  }
  const [download] = await Promise.all([page.waitForEvent("download"), forImg.click()]);
  expect(download.suggestedFilename()).toBe("mediahost-shots-img-example.sxcu");
  const sxcu = JSON.parse(readFileSync((await download.path())!, "utf8")) as { Name: string; Headers: Record<string, string> };
  expect(sxcu.Headers["x-mediahost-domain"]).toBe("img.example");
  expect(sxcu.Name).toBe("img.example (Shots)");
  await screenshots(page, "domain-sharex");
});
