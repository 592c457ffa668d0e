/**
 * Guest uploads into a folder in a real Chromium against the real server
 * (docs/guest-uploads.md): the upload page with its password form and progress (scripts on),
 * the same page without JavaScript (plain forms, the result after the 303), and the owner's
 * settings in the folders panel, at phone (390 px) and desktop (1280 px) widths.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { expect, type Page, test } from "@playwright/test";
import { fixture } from "../support/media";
import { baseUrl, createUser, type E2EUser, signIn } from "./support";

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

type FolderReply = { folder: { id: string; code: string; post_count: number } };

async function guestFolder(user: E2EUser, name: string, guest: Record<string, unknown>) {
  const { folder } = await apiCall<FolderReply>(user, "/folders", "POST", { name });
  await apiCall(user, `/folders/${folder.id}`, "PATCH", { guest_uploads: guest });
  return folder;
}

/** Nothing wider than the viewport (no sideways scrolling on a phone). */
async function fitsWidth(page: Page): Promise<void> {
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
}

const require = createRequire(import.meta.url);

/** axe-core's violations on the page as it is now, as tests/e2e/a11y.spec.ts checks its pages. */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(await readFile(require.resolve("axe-core/axe.min.js"), "utf8"));
  return page.evaluate(async () => {
    type Found = { violations: { id: string; nodes: { target: unknown[] }[] }[] };
    const axe = (window as unknown as { axe: { run: (context: Document) => Promise<Found> } }).axe;
    return (await axe.run(document)).violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${JSON.stringify(n.target)}`));
  });
}

const postCount = async (user: E2EUser, id: string) => (await apiCall<FolderReply>(user, `/folders/${id}`, "GET")).folder.post_count;

let owner: E2EUser;

test.beforeAll(async () => {
  owner = await createUser();
});

test("the upload page: password first, then files with progress, at 390 and 1280 px", async ({ browser }) => {
  const folder = await guestFolder(owner, "Wedding photos", { enabled: true, password: "confetti and cake" });
  const png = await fixture("png");
  for (const [i, width] of WIDTHS.entries()) {
    // A guest: a browser with no account and no cookies.
    // bypassCSP: axe is injected as a script (the pages carry a Content-Security-Policy).
    const context = await browser.newContext({ viewport: { width, height: 800 }, bypassCSP: true });
    const page = await context.newPage();
    await page.goto(`/f/${folder.code}/upload`);
    await expect(page.getByRole("heading", { name: "Upload to Wedding photos" })).toBeVisible();
    await expect(page.getByLabel("Files to upload")).toHaveCount(0);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByLabel("Password").fill("not the one");
    await page.getByRole("button", { name: "Open" }).click();
    await expect(page.getByRole("main").getByRole("alert")).toHaveText("That password is not right.");
    await page.getByLabel("Password").fill("confetti and cake");
    await page.getByRole("button", { name: "Open" }).click();

    await page.getByLabel("Files to upload").setInputFiles(png);
    await fitsWidth(page);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole("button", { name: "Upload", exact: true }).click();
    await expect(page.getByRole("main").getByRole("status")).toHaveText("Thank you: 1 file uploaded.");
    // Scripts on: the JSON endpoint answered in place, no navigation.
    expect(new URL(page.url()).search).toBe("");
    expect(await postCount(owner, folder.id)).toBe(i + 1);
    await context.close();
  }
});

test("without JavaScript: the plain form uploads and the page says how it went", async ({ browser }) => {
  const folder = await guestFolder(owner, "No script drop", { enabled: true, max_file_bytes: 300 });
  const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 800 } });
  const page = await context.newPage();
  await page.goto(`/f/${folder.code}/upload`);
  await page.getByLabel("Files to upload").setInputFiles(await fixture("png"));
  await page.getByRole("button", { name: "Upload", exact: true }).click();
  await expect(page).toHaveURL(/\?error=file_too_large$/);
  await expect(page.getByRole("main").getByRole("status")).toHaveText("A file is larger than this folder accepts.");

  await apiCall(owner, `/folders/${folder.id}`, "PATCH", { guest_uploads: { max_file_bytes: null } });
  await page.goto(`/f/${folder.code}/upload`);
  await page.getByLabel("Files to upload").setInputFiles(await fixture("png"));
  await page.getByRole("button", { name: "Upload", exact: true }).click();
  await expect(page).toHaveURL(/\?sent=1&failed=0$/);
  await expect(page.getByRole("main").getByRole("status")).toHaveText("Thank you: 1 file uploaded.");
  await fitsWidth(page);
  expect(await postCount(owner, folder.id)).toBe(1);

  // Switched off: the page is gone at once.
  await apiCall(owner, `/folders/${folder.id}`, "PATCH", { guest_uploads: { enabled: false } });
  expect((await page.goto(`/f/${folder.code}/upload`))?.status()).toBe(404);
  await context.close();
});

test("dashboard: the owner opens a folder to guests and copies the upload page's link", async ({ page }) => {
  const { folder } = await apiCall<FolderReply>(owner, "/folders", "POST", { name: "Drop box" });
  expect((await page.goto(`/f/${folder.code}/upload`))?.status()).toBe(404);
  await signIn(page, owner.username, owner.password);
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto("/dashboard/folders");
    const card = page.locator("[data-folder='Drop box']");
    await card.getByText(/^Guest uploads:/).click();
    const form = card.getByRole("form", { name: "Guest uploads of Drop box" });
    await fitsWidth(page);
    if (width === 390) {
      await expect(card.getByText("Guest uploads: off")).toBeVisible();
      await form.getByLabel("Accept guest uploads").check();
      await form.getByLabel("Files in all").fill("5");
      await form.getByRole("button", { name: "Save guest uploads" }).click();
    }
    await expect(card.getByText("Guest uploads: open")).toBeVisible();
    await expect(card.getByRole("link", { name: `${baseUrl()}/f/${folder.code}/upload` })).toBeVisible();
  }
  const after = await apiCall<{ folder: { guest_uploads: { enabled: boolean; max_files: number } } }>(
    owner,
    `/folders/${folder.id}`,
    "GET",
  );
  expect(after.folder.guest_uploads).toMatchObject({ enabled: true, max_files: 5 });
  await page.goto(`/f/${folder.code}/upload`);
  await expect(page.getByRole("heading", { name: "Upload to Drop box" })).toBeVisible();
});
