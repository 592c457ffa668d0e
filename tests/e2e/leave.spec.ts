/**
 * Leaving, and taking your data (issue 27 §2, docs/account-deletion.md) in a real Chromium:
 * Settings → Download my data saves a zip with the uploaded file; Settings → Delete account
 * refuses a wrong password and then deletes the account (its file is gone from /cdn); the
 * console deletes another user. At 390 and 1280 px.
 */
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, test, type Page } from "@playwright/test";
import sharp from "sharp";
import { admin, baseUrl, createUser, signIn, uniqueName, upload } from "./support";

const run = promisify(execFile);
const WIDTHS = [390, 1280] as const;
const PASSWORD = "correct horse battery";

// Sign-ins and the password check run scrypt: seconds each on a loaded 2-core machine.
test.describe.configure({ timeout: 180_000 });

async function sampleImage(seed: number): Promise<string> {
  const path = join(tmpdir(), `e2e-leave-${process.pid}-${seed}.png`);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="30"><rect width="40" height="30" fill="rgb(${seed % 255},120,40)"/></svg>`;
  await writeFile(path, await sharp(Buffer.from(svg)).png().toBuffer());
  return path;
}

async function at(page: Page, width: number): Promise<void> {
  await page.setViewportSize({ width, height: 844 });
}

for (const width of WIDTHS) {
  test(`Settings: download my data, then delete the account (${width} px)`, async ({ page }) => {
    await at(page, width);
    const user = await createUser();
    const image = await sampleImage(width);
    const post = await upload(user, image, "image/png");
    await signIn(page, user.username, user.password);
    await page.goto("/dashboard/settings");
    // The page's own bundle has hydrated (docs/dashboard-scripts.md): the forms below need it.
    await expect(page.locator("html")).toHaveAttribute("data-island-hydrated", "", { timeout: 60_000 });

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("region", { name: "Your data" }).getByRole("link", { name: "Download my data" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`${user.username}-data.zip`);
    const zip = join(tmpdir(), `e2e-leave-${process.pid}-${width}.zip`);
    await download.saveAs(zip);
    const { stdout } = await run("unzip", ["-Z1", zip]);
    expect(stdout.split("\n")).toEqual(expect.arrayContaining(["account.json", "posts.json", "comments.json", "likes.json"]));
    const stored = stdout.split("\n").find((name) => name.startsWith(`files/${post.code}/`));
    expect(stored).toBeTruthy();
    const { stdout: bytes } = await run("unzip", ["-p", zip, stored!], { encoding: "buffer" });
    expect(Buffer.compare(bytes as unknown as Buffer, Buffer.from(await (await fetch(post.files[0].url)).arrayBuffer()))).toBe(0);

    const section = page.getByRole("region", { name: "Delete account" });
    await section.getByLabel("Password").fill("not my password");
    await section.getByLabel("Your username, to confirm").fill(user.username);
    await section.getByRole("button", { name: "Delete my account" }).click();
    await expect(section.getByRole("alert")).toHaveText("Wrong password.", { timeout: 60_000 });

    await section.getByLabel("Password").fill(PASSWORD);
    await section.getByRole("button", { name: "Delete my account" }).click();
    await page.waitForURL((url) => url.pathname === "/", { timeout: 60_000 });
    expect((await fetch(`${baseUrl()}/api/users/@me`, { headers: { "api-key": user.apiKey } })).status).toBe(401);
    expect((await fetch(post.files[0].url)).status).toBe(404);
    await page.goto("/dashboard/settings");
    await expect(page).toHaveURL(/\/signin/);
  });
}

for (const width of WIDTHS) {
  test(`the console deletes a user, the username typed again (${width} px)`, async ({ page }) => {
    await at(page, width);
    const boss = uniqueName("boss");
    await admin("user", "create", "--username", boss, "--password", PASSWORD);
    await admin("user", "role", "--user", boss, "--role", "admin");
    const doomed = await createUser();
    const post = await upload(doomed, await sampleImage(width + 1), "image/png");
    const id = String((await admin("user", "plan", "--user", doomed.username, "--plan", "free")).id);

    await signIn(page, boss, PASSWORD);
    await page.goto(`/admin/users/${id}`);
    await page.getByText("Delete account", { exact: true }).click();
    await page.getByLabel("Type the username to confirm").fill("someone else");
    await page.getByRole("button", { name: "Delete for good" }).click();
    await expect(page.locator('p[role="alert"]')).toContainText(`Type the username, ${doomed.username}`);

    await page.goto(`/admin/users/${id}`);
    await page.getByText("Delete account", { exact: true }).click();
    await page.getByLabel("Type the username to confirm").fill(doomed.username);
    await page.getByRole("button", { name: "Delete for good" }).click();
    await expect(page.locator('p[role="status"]')).toContainText(`${doomed.username} is deleted (1 post)`);
    await expect(page).toHaveURL(/\/admin\/users\?/);
    expect((await fetch(post.files[0].url)).status).toBe(404);
    const audit = (await admin("audit", "list", "--limit", "5")) as { entries: { action: string; target: { id: string } }[] };
    expect(audit.entries.some((e) => e.action === "user.delete")).toBe(true);
  });
}
