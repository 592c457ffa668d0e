/**
 * axe-core in a real Chromium over the pages issue 29 measures, in light and in dark mode
 * (the system colour scheme, which a user with no saved theme follows), at 390 and 1280 px:
 * share pages of an image, a video and a text paste, /discover, a profile, the dashboard's
 * gallery and its settings; the first-run pages of issue 38 (/setup while no administrator
 * exists, then /admin/welcome and /admin/settings). Every page must have no violation at all (axe's default rules:
 * WCAG 2 A/AA and best practices). Screenshots of each for people to look at:
 * test-results/screenshots/a11y-<page>-<scheme>-<phone|desktop>.png.
 *
 * On a server of its own with UPLOAD_FILES=media,text (the shared one refuses text).
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import sharp from "sharp";
import { fixture } from "../support/media";
import { adminOn, startLocalhostServer, type LocalhostServer } from "./own-server";
import { screenshots, uniqueName } from "./support";

const require = createRequire(import.meta.url);

let own: LocalhostServer;
let username: string;
const password = "correct horse battery";
const shares: Record<string, string> = {};
const scratch: string[] = [];

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

/** A 1920x1080 picture with detail (so its renditions are real work), as PNG. */
async function photo(): Promise<string> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1920" height="1080">
    <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#2a4f90"/><stop offset="1" stop-color="#e0a050"/></linearGradient></defs>
    <rect width="1920" height="1080" fill="url(#g)"/><circle cx="960" cy="540" r="300" fill="#fff" fill-opacity="0.3"/></svg>`;
  const path = join(tmpdir(), `e2e-a11y-${process.pid}.png`);
  await writeFile(path, await sharp(Buffer.from(svg)).png().toBuffer());
  scratch.push(path);
  return path;
}

async function uploadTo(apiKey: string, path: string, name: string, title: string): Promise<string> {
  const form = new FormData();
  form.append("file", new Blob([await readFile(path)]), name);
  const response = await fetch(`${own.url}/api/upload`, {
    method: "POST",
    headers: { "api-key": apiKey, "post-privacy": "public", priority: "false" },
    body: form,
  });
  const body = (await response.json()) as { post?: { code: string; url: string } };
  if (response.status !== 200 || !body.post) throw new Error(`upload failed: ${response.status} ${JSON.stringify(body)}`);
  await fetch(`${own.url}/api/posts/${body.post.code}`, {
    method: "PATCH",
    headers: { "api-key": apiKey, "content-type": "application/json" },
    body: JSON.stringify({ title }),
  });
  return body.post.url;
}

test.describe.configure({ mode: "serial" });
// axe is injected as a script; share pages carry a Content-Security-Policy.
test.use({ bypassCSP: true });

test.beforeAll(async () => {
  test.setTimeout(300_000);
  own = await startLocalhostServer({ UPLOAD_FILES: "media,text" });
  username = uniqueName("a11y");
  await adminOn(own, "user", "create", "--username", username, "--password", password);
  const apiKey = String((await adminOn(own, "app", "create", "--user", username, "--name", "A11y", "--gallery-access")).key);
  const text = join(tmpdir(), `e2e-a11y-${process.pid}.py`);
  await writeFile(text, '#!/usr/bin/env python3\ndef greet(name):\n    return f"Hello, {name}"\n\nprint(greet("world"))\n');
  scratch.push(text);
  shares.image = await uploadTo(apiKey, await photo(), "harbour.png", "Harbour at dusk");
  shares.video = await uploadTo(apiKey, await fixture("mp4"), "clip.mp4", "A short clip");
  shares.text = await uploadTo(apiKey, text, "greet.py", "Greeting script");
});

test.afterAll(async () => {
  await own?.server.stop();
  await Promise.all(scratch.map((path) => rm(path, { force: true })));
});

/** axe-core's violations on the page as it is now. */
async function violations(page: Page): Promise<AxeViolation[]> {
  const source = await readFile(require.resolve("axe-core/axe.min.js"), "utf8");
  await page.evaluate(source);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document) => Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run(document)).violations;
  });
}

const summary = (found: AxeViolation[]): string[] =>
  found.flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${JSON.stringify(n.target)} ${n.failureSummary ?? ""}`));

/** Loads `path`, waits for what it shows, and checks it with axe at 1280 and 390 px; then the screenshots. */
async function check(
  page: Page,
  name: string,
  path: string,
  scheme: "light" | "dark",
  ready: (page: Page) => Promise<void>,
): Promise<void> {
  await page.emulateMedia({ colorScheme: scheme });
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
    await page.goto(path.startsWith("http") ? path : `${own.url}${path}`);
    await ready(page);
    await page.waitForLoadState("networkidle");
    expect(summary(await violations(page)), `${name}, ${scheme}, ${width} px`).toEqual([]);
  }
  await screenshots(page, `a11y-${name}-${scheme}`);
}

const heading = (page: Page) => expect(page.getByRole("heading", { level: 1 }).first()).toBeVisible();

// Before any administrator exists: the page that makes the first one (docs/setup.md).
for (const scheme of ["light", "dark"] as const) {
  test(`${scheme}: the set-up page has no axe violations`, async ({ page }) => {
    await check(page, "setup", "/setup", scheme, async (p) => {
      await expect(p.getByLabel("Set-up code")).toBeVisible();
    });
  });
}

for (const scheme of ["light", "dark"] as const) {
  test(`${scheme}: share pages of an image, a video and a text have no axe violations`, async ({ page }) => {
    await check(page, "share-image", shares.image, scheme, async (p) => {
      await expect(p.getByRole("heading", { name: "Harbour at dusk" })).toBeVisible();
      await expect
        .poll(() =>
          p
            .locator("main img")
            .first()
            .evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth),
        )
        .toBeGreaterThan(0);
    });
    await check(page, "share-video", shares.video, scheme, async (p) => {
      await expect(p.locator("main video")).toBeVisible();
    });
    await check(page, "share-text", shares.text, scheme, async (p) => {
      await expect(p.locator(".text-view-code")).toContainText("greet");
    });
  });

  test(`${scheme}: discover and a profile have no axe violations`, async ({ page }) => {
    await check(page, "discover", "/discover", scheme, heading);
    await check(page, "profile", `/u/${username}`, scheme, async (p) => {
      await expect(p.getByRole("heading", { name: "Harbour at dusk" })).toBeVisible();
    });
  });

  test(`${scheme}: the dashboard's gallery, settings and tags, and a share page signed in, have no axe violations`, async ({ page }) => {
    await page.goto(`${own.url}/signin`);
    await page.getByLabel("Username or email").fill(username);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    // The password check is scrypt (128 MiB): slow on a loaded machine.
    await page.waitForURL((url) => !url.pathname.startsWith("/signin"), { timeout: 120_000 });
    await check(page, "dashboard", "/dashboard", scheme, async (p) => {
      await expect(p.locator('[aria-label="Posts"] li').first()).toBeVisible();
    });
    await check(page, "settings", "/dashboard/settings", scheme, heading);
    // The tag manager (docs/tags.md).
    await check(page, "tags", "/dashboard/tags", scheme, heading);
    await check(page, "share-image-signed-in", shares.image, scheme, async (p) => {
      await expect(p.getByTestId("engage")).toBeVisible();
    });
  });
}

// Last: an administrator (which ends /setup) and the console's first-run and settings pages.
test("the first-run welcome and the settings console have no axe violations, light and dark", async ({ page }) => {
  // Two CLI calls, a sign-in (scrypt) and four pages at two widths.
  test.setTimeout(180_000);
  const admin = uniqueName("a11yadmin");
  await adminOn(own, "user", "create", "--username", admin, "--password", password);
  await adminOn(own, "user", "role", "--user", admin, "--role", "admin");
  await page.goto(`${own.url}/signin`);
  await page.getByLabel("Username or email").fill(admin);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL((url) => !url.pathname.startsWith("/signin"), { timeout: 120_000 });
  for (const scheme of ["light", "dark"] as const) {
    await check(page, "admin-welcome", "/admin/welcome", scheme, heading);
    await check(page, "admin-settings", "/admin/settings", scheme, heading);
  }
});
