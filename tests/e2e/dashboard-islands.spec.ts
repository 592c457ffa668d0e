/**
 * The gallery and settings on a full load run the dashboard's own bundle, not Next's runtime
 * (docs/dashboard-scripts.md): the page carries no Next script, hydrates without an attribute
 * that differs from the server's HTML, and works (an upload, the editor's share password, the
 * upload privacy, a profile save). A client navigation into the dashboard keeps Next's path.
 */
import { expect, type Page, test } from "@playwright/test";
import sharp from "sharp";
import { createUser, type E2EUser, signIn } from "./support";

/** Collects what the page reports as an error (a hydration mismatch among them). */
function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  return errors;
}

/** The page's scripts: none of Next's, the island's module scripts only. */
async function expectIslandScripts(page: Page, island: string): Promise<void> {
  const sources = await page.locator("script[src]").evaluateAll((nodes) => nodes.map((node) => node.getAttribute("src") ?? ""));
  expect(sources.length).toBeGreaterThan(0);
  for (const src of sources) expect(src).toMatch(/^\/_next\/static\/islands\//);
  expect(sources.at(-1)).toContain(`/${island}-`);
  expect(await page.evaluate(() => "__next_f" in self)).toBe(false);
  await expect(page.locator("html")).toHaveAttribute("data-island-hydrated", "");
}

/**
 * Every element of the island hydrated (React keeps its props on the node), and no id or id
 * reference in the DOM differs from what the client rendered: React does not patch attributes
 * when it hydrates, so a useId of another root would leave the server's ids behind.
 */
async function expectHydratedAsRendered(page: Page): Promise<void> {
  const problems = await page.evaluate(() => {
    const found: string[] = [];
    const attributes = [
      ["id", "id"],
      ["htmlFor", "for"],
      ["aria-describedby", "aria-describedby"],
      ["aria-labelledby", "aria-labelledby"],
      ["aria-controls", "aria-controls"],
    ] as const;
    for (const element of document.querySelectorAll("[data-island] *")) {
      const key = Object.keys(element).find((name) => name.startsWith("__reactProps$"));
      if (!key) {
        found.push(`not hydrated: <${element.tagName.toLowerCase()}>`);
        continue;
      }
      const props = (element as unknown as Record<string, Record<string, unknown>>)[key];
      for (const [prop, attribute] of attributes) {
        const value = props[prop];
        if (value !== undefined && String(value) !== element.getAttribute(attribute)) {
          found.push(`${attribute}: the page has ${element.getAttribute(attribute)}, React rendered ${String(value)}`);
        }
      }
    }
    return found;
  });
  expect(problems).toEqual([]);
}

async function photo(): Promise<Buffer> {
  return sharp({ create: { width: 320, height: 240, channels: 3, background: { r: 40, g: 120, b: 200 } } })
    .png()
    .toBuffer();
}

test.describe("the dashboard's own bundle", () => {
  let user: E2EUser;
  test.beforeAll(async () => {
    user = await createUser();
  });

  test("gallery: no Next runtime, an upload and the editor's share password work", async ({ page }) => {
    test.setTimeout(120_000);
    await signIn(page, user.username, user.password);
    const errors = watchErrors(page);
    await page.goto("/dashboard");
    await expectIslandScripts(page, "gallery");
    await expectHydratedAsRendered(page);

    await page.getByLabel("Files to upload").setInputFiles([{ name: "island.png", mimeType: "image/png", buffer: await photo() }]);
    const uploads = page.getByRole("list", { name: "Uploads" });
    await expect(uploads.locator("[data-upload-state=done]")).toHaveCount(1, { timeout: 60_000 });
    const posts = page.getByRole("list", { name: "Posts" });
    await expect(posts.locator("li")).toHaveCount(1);
    const code = await posts.locator("li").first().getAttribute("data-code");

    // The editor loads on use (a chunk of its own); its password goes through the route table.
    await posts
      .getByRole("button", { name: /^Edit / })
      .first()
      .click();
    const editor = page.getByRole("dialog");
    await editor.getByLabel(/^Share-page password/).fill("island password");
    await editor.getByRole("button", { name: "Set password" }).click();
    await expect(editor.getByRole("status")).toHaveText("Password set.");
    const post = await fetch(new URL(`/api/posts/${code}`, page.url()), { headers: { "api-key": user.apiKey } });
    expect(((await post.json()) as { post: { password_protected: boolean } }).post.password_protected).toBe(true);
    expect(errors).toEqual([]);
  });

  test("settings: no Next runtime, the upload privacy and a profile save work", async ({ page }) => {
    await signIn(page, user.username, user.password);
    const errors = watchErrors(page);
    await page.goto("/dashboard/settings");
    await expectIslandScripts(page, "settings");
    await expectHydratedAsRendered(page);

    const privacy = page.getByLabel("New uploads from the dashboard and your phone's share sheet");
    const saved = page.waitForResponse((r) => r.url().endsWith("/relay/users/@me/upload-privacy") && r.status() === 200);
    await privacy.selectOption("public");
    await saved;
    await page.getByLabel("Display name").fill("Island");
    await page.getByRole("button", { name: "Save profile" }).click();
    await expect(page.getByText("Saved.")).toBeVisible();

    await page.reload();
    await expect(page.locator("html")).toHaveAttribute("data-island-hydrated", "");
    await expect(privacy).toHaveValue("public");
    await expect(page.getByLabel("Display name")).toHaveValue("Island");
    expect(errors).toEqual([]);
  });

  test("a client navigation into the gallery and settings keeps Next's runtime", async ({ page }) => {
    await signIn(page, user.username, user.password);
    await page.goto("/dashboard/folders");
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await page.waitForLoadState("networkidle");
    // A full load would lose this.
    await page.evaluate(() => Object.assign(window, { sameDocument: true }));
    const nav = page.getByRole("navigation", { name: "Dashboard" });
    await nav.getByRole("link", { name: "Gallery" }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByRole("heading", { name: "Gallery" })).toBeVisible();
    await expect(page.getByLabel("Files to upload")).toBeAttached();
    await nav.getByRole("link", { name: "Settings" }).click();
    await expect(page).toHaveURL(/\/dashboard\/settings$/);
    const privacy = page.getByLabel("New uploads from the dashboard and your phone's share sheet");
    const saved = page.waitForResponse((r) => r.url().endsWith("/relay/users/@me/upload-privacy") && r.status() === 200);
    await privacy.selectOption("private");
    await saved;
    expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    expect(await page.locator('script[src*="/_next/static/islands/"]').count()).toBe(0);
  });
});
