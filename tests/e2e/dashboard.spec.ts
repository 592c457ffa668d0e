/**
 * The dashboard end to end in a real Chromium against the real server: register, create an
 * app and copy its key, download the ShareX .sxcu and upload with exactly the request it
 * describes, open its deletion link (GET shows a confirmation, POST deletes), upload
 * through the dashboard with a progress bar, make a post private (anonymous readers then
 * get 404), and screenshots of every dashboard page at phone and desktop widths.
 */
import { expect, request as playwrightRequest, test } from "@playwright/test";
import { readFileSync } from "node:fs";
import sharp from "sharp";
import { admin, screenshots, uniqueName } from "./support";

const PASSWORD = "dashboard e2e password";

async function png(width: number, height: number, seed: number): Promise<Buffer> {
  // Noise, so the file is large enough for the upload to report progress in steps.
  const pixels = Buffer.alloc(width * height * 3);
  let x = seed;
  for (let i = 0; i < pixels.length; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    pixels[i] = x >> 16;
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

/** Resolves a ShareX `{json:a.b}` template against a JSON response. */
function sharexTemplate(template: string, body: unknown): string {
  return template.replace(/\{json:([^}]+)\}/g, (_, path: string) => {
    const value = path.split(".").reduce<unknown>((node, key) => (node as Record<string, unknown> | null)?.[key], body);
    return String(value);
  });
}

test("dashboard: apps and keys, .sxcu upload, dashboard upload, privacy", async ({ page, context, baseURL, browser }) => {
  test.setTimeout(180_000);
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const username = uniqueName("dash");

  // Signed out, the dashboard sends people to sign in.
  await page.goto("/dashboard");
  await expect(page).toHaveURL(/\/signin/);

  await page.goto("/register");
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  // A password hash (scrypt, 128 MiB) takes seconds on a loaded machine: no 10 s default here.
  await expect(page).toHaveURL(/\/dashboard/, { timeout: 60_000 });
  await expect(page.getByRole("heading", { name: "Gallery" })).toBeVisible();

  // Create an app with gallery access; its key is shown once and copies to the clipboard.
  await page.getByRole("link", { name: "Apps & keys" }).click();
  await page.getByLabel("App name").fill("E2E ShareX");
  await page.getByRole("form", { name: "Create an app" }).getByLabel("Gallery access").check();
  await page.getByRole("button", { name: "Create app" }).click();
  const key = (await page.getByTestId("key-value").textContent())?.trim() ?? "";
  expect(key).toMatch(/^[A-Za-z0-9_-]{20,}$/);
  await page.getByRole("button", { name: "Copy key" }).click();
  await expect(page.getByRole("button", { name: "Copied" })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
  await screenshots(page, "dashboard-apps");

  // The key is not shown again after a reload; only its hint.
  await page.reload();
  await expect(page.getByTestId("key-value")).toHaveCount(0);
  await expect(page.locator("[data-app='E2E ShareX']")).toContainText(key.slice(0, 6));

  // Regenerate to see the setup again, then download the .sxcu.
  page.once("dialog", (dialog) => void dialog.accept());
  await page.getByRole("button", { name: "Regenerate key of E2E ShareX" }).click();
  const newKey = (await page.getByTestId("key-value").textContent())?.trim() ?? "";
  expect(newKey).not.toBe(key);
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: /^Download (?!.*-links\.sxcu$).*\.sxcu$/ }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/\.sxcu$/);
  const sxcu = JSON.parse(readFileSync((await download.path())!, "utf8")) as {
    Version: string;
    RequestMethod: string;
    RequestURL: string;
    Headers: Record<string, string>;
    Body: string;
    FileFormName: string;
    URL: string;
    DeletionURL: string;
    ErrorMessage: string;
  };
  expect(sxcu).toMatchObject({ Version: "16.1.0", RequestMethod: "POST", Body: "MultipartFormData" });
  expect(sxcu.Headers["api-key"]).toBe(newKey);
  expect(sxcu.ErrorMessage).toContain("{json:error.message}");
  for (const tab of ["Flameshot", "Chatterino", "curl"]) {
    await page.getByRole("tab", { name: tab }).click();
    await expect(page.getByRole("tabpanel")).toContainText(newKey);
  }

  // Upload exactly as ShareX would with this file: its URL, headers and form field.
  const form = new FormData();
  form.append(sxcu.FileFormName, new Blob([new Uint8Array(await png(64, 48, 1))], { type: "image/png" }), "sharex.png");
  const uploaded = await fetch(sxcu.RequestURL, { method: sxcu.RequestMethod, headers: sxcu.Headers, body: form });
  const uploadBody: unknown = await uploaded.json();
  expect(uploaded.status, JSON.stringify(uploadBody)).toBe(200);
  const shareLink = sharexTemplate(sxcu.URL, uploadBody);
  const code = (uploadBody as { post: { code: string } }).post.code;
  expect(shareLink).toContain(code);
  // ShareX shows ErrorMessage on failure: with a dead key the template reads the error in words.
  const failed = await fetch(sxcu.RequestURL, { method: "POST", headers: { ...sxcu.Headers, "api-key": "mha_dead" }, body: form });
  expect(sharexTemplate(sxcu.ErrorMessage, await failed.json())).toMatch(/^unauthorized: .+/);

  // The deletion link: GET only asks; the POST of its form deletes.
  const deletionUrl = new URL(sharexTemplate(sxcu.DeletionURL, uploadBody));
  await page.goto(deletionUrl.pathname);
  await expect(page.getByRole("heading", { name: "Delete post" })).toBeVisible();
  const api = await playwrightRequest.newContext({ baseURL, extraHTTPHeaders: { "api-key": newKey } });
  expect((await api.get(`/api/posts/${code}`)).status()).toBe(200);
  await screenshots(page, "dashboard-delete");
  await page.getByRole("button", { name: "Delete post" }).click();
  await expect(page).toHaveURL(/\/dashboard\?deleted=/);
  expect((await api.get(`/api/posts/${code}`)).status()).toBe(404);

  // Without JavaScript the same form is a plain multipart POST, which the server reads and
  // checks before Next (lib/server/form-posts.ts): the action still runs on the replayed body.
  const second = await fetch(sxcu.RequestURL, { method: sxcu.RequestMethod, headers: sxcu.Headers, body: form });
  const secondBody: unknown = await second.json();
  const secondCode = (secondBody as { post: { code: string } }).post.code;
  const noScript = await browser.newContext({ baseURL, javaScriptEnabled: false, storageState: await context.storageState() });
  const plain = await noScript.newPage();
  await plain.goto(new URL(sharexTemplate(sxcu.DeletionURL, secondBody)).pathname);
  await plain.getByRole("button", { name: "Delete post" }).click();
  await expect(plain).toHaveURL(/\/dashboard\?deleted=/);
  expect((await api.get(`/api/posts/${secondCode}`)).status()).toBe(404);
  await noScript.close();

  // Upload through the dashboard: one progress bar per file, errors per file in words.
  await page.goto("/dashboard");
  await page.evaluate(() => {
    const seen = new Set<string>();
    (window as unknown as { seenStates: Set<string> }).seenStates = seen;
    new MutationObserver(() => {
      document.querySelectorAll("[data-upload-state]").forEach((node) => seen.add(node.getAttribute("data-upload-state") ?? ""));
    }).observe(document.body, { subtree: true, childList: true, attributes: true });
  });
  const big = await png(1600, 1200, 7);
  await page.getByLabel("Files to upload").setInputFiles([
    { name: "dashboard.png", mimeType: "image/png", buffer: big },
    { name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("not an image") },
  ]);
  const uploads = page.getByRole("list", { name: "Uploads" });
  await expect(uploads.locator("[data-upload-state=done]")).toHaveCount(1, { timeout: 60_000 });
  await expect(uploads.locator("[data-upload-state=failed]")).toHaveCount(1);
  await expect(uploads.locator("[data-upload-state=failed] [role=alert]")).toHaveText(/.{10,}/);
  await expect(uploads.getByRole("progressbar", { name: "Upload progress of dashboard.png" })).toHaveAttribute("value", "100");
  expect([...(await page.evaluate(() => [...(window as unknown as { seenStates: Set<string> }).seenStates]))]).toEqual(
    expect.arrayContaining(["uploading", "done"]),
  );
  const posts = page.getByRole("list", { name: "Posts" });
  await expect(posts.locator("li")).toHaveCount(1);
  const dashboardCode = await posts.locator("li").first().getAttribute("data-code");
  await screenshots(page, "dashboard-gallery");

  // Make it private in the editor; its share page then answers 404 to anonymous visitors.
  const anonymous = await playwrightRequest.newContext({ baseURL });
  expect((await anonymous.get(`/p/${dashboardCode}`)).status()).toBe(200);
  await posts
    .getByRole("button", { name: /^Edit / })
    .first()
    .click();
  const editor = page.getByRole("dialog");
  await editor.getByLabel("Title", { exact: true }).fill("Made private");
  await editor.getByLabel("Privacy", { exact: true }).selectOption("private");
  await editor.getByRole("button", { name: "Save changes" }).click();
  await expect(editor.getByRole("status")).toHaveText("Saved.");
  await screenshots(page, "dashboard-editor");
  expect((await anonymous.get(`/p/${dashboardCode}`)).status()).toBe(404);
  expect((await api.get(`/api/posts/${dashboardCode}`)).status()).toBe(200);
  await page.keyboard.press("Escape");

  // Filters: privacy and title search narrow the grid.
  await page.getByLabel("Filter by privacy").selectOption("public");
  await expect(page.getByText("No posts match these filters.")).toBeVisible();
  await page.getByLabel("Filter by privacy").selectOption("private");
  await page.getByLabel("Search titles, descriptions and text in images").fill("made");
  await expect(posts.locator("li")).toHaveCount(1);

  // Teams need Ultra: the operator upgrades the account, then a team and its key appear.
  await page.goto("/dashboard/teams");
  await expect(page.getByText("Creating a team needs the Ultra plan.")).toBeVisible();
  await admin("user", "plan", "--user", username, "--plan", "ultra");
  await page.reload();
  await page.getByLabel("Team name").fill("E2E team");
  await page.getByRole("button", { name: "Create team" }).click();
  await expect(page.getByText("Team key: copy it now")).toBeVisible();
  await expect(page.getByRole("list", { name: "Your teams" })).toContainText("E2E team");
  await screenshots(page, "dashboard-teams");
  await page.getByRole("link", { name: "Open team gallery" }).click();
  await expect(page.getByRole("heading", { name: "E2E team" })).toBeVisible();
  await expect(page.getByText("No team posts yet.")).toBeVisible();

  for (const [name, path] of [
    ["usage", "/dashboard/usage"],
    ["settings", "/dashboard/settings"],
  ] as const) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await page.waitForLoadState("networkidle");
    await screenshots(page, `dashboard-${name}`);
  }
  await expect(page.getByText("Your plan:")).toBeVisible();
  await api.dispose();
  await anonymous.dispose();
});
