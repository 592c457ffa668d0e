/**
 * The first hour without a shell (issue 38, docs/setup.md): an empty instance, set up in the
 * browser with the code from the server's log, its first questions answered, and a first
 * paste uploaded; then the console's settings, one of them locked by the environment. On a
 * phone (390 px) and a desktop (1280 px), each on a fresh server of its own.
 */
import { expect, type Page, test } from "@playwright/test";
import { startLocalhostServer } from "./own-server";
import { screenshots, uniqueName } from "./support";

/** Nothing wider than the window (a phone must not scroll sideways). */
async function fitsWidth(page: Page): Promise<void> {
  expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
}

/** The set-up code of the server's start-up line (scripts/start.ts). */
function loggedCode(output: string): string {
  const code = /set-up code ([0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4})/.exec(output)?.[1];
  if (!code) throw new Error(`no set-up code in the server's log:\n${output}`);
  return code;
}

for (const [label, width, height] of [
  ["phone", 390, 844],
  ["desktop", 1280, 800],
] as const) {
  test(`${label}: from an empty instance through /setup to a first paste, with no shell`, async ({ browser }) => {
    test.setTimeout(240_000);
    // The environment sets SITE_NAME: the console must show it locked, with its source.
    // REGISTRATION unset (the helper sets it open): the console changes it below.
    const own = await startLocalhostServer({ SITE_NAME: "Locked Name", REGISTRATION: "" });
    const context = await browser.newContext({ viewport: { width, height }, isMobile: width < 500, hasTouch: width < 500 });
    const page = await context.newPage();
    try {
      await page.goto(own.url);
      await page.getByRole("link", { name: "Set up this instance" }).click();
      await expect(page.getByRole("heading", { name: "Set up this instance" })).toBeVisible();
      await fitsWidth(page);
      if (label === "desktop") await screenshots(page, "setup");

      const username = uniqueName("root");
      const fill = async (code: string) => {
        await page.getByLabel("Set-up code").fill(code);
        await page.getByLabel("Username").fill(username);
        await page.getByLabel("Password").fill("a long first password");
        await page.getByRole("button", { name: "Create the administrator" }).click();
      };
      // A wrong code is refused, saying nothing but that.
      await fill("0000-0000-0000");
      await expect(page.getByText("That set-up code is not valid.")).toBeVisible({ timeout: 60_000 });
      // The code as printed in the log, typed in lower case without dashes: still the code.
      await fill(loggedCode(own.server.output()).toLowerCase().replace(/-/g, ""));
      await page.waitForURL("**/admin/welcome", { timeout: 120_000 });

      // The first questions; each answer is a setting.
      await page.getByLabel("What this instance hosts").selectOption("media,text");
      await page.getByRole("button", { name: "Save" }).click();
      await expect(page.getByRole("status")).toContainText("Saved UPLOAD_FILES");
      await expect(page.getByRole("link", { name: "Set up ShareX / Flameshot" })).toBeVisible();

      // /setup is gone once an administrator exists; signed out, the home page now offers sign-up (open).
      expect((await page.request.get(`${own.url}/setup`)).status()).toBe(404);
      const home = await (await fetch(own.url)).text();
      expect(home).toContain(">Create account</a>");
      expect(home).not.toContain(">Set up this instance</a>");

      // A first paste from the dashboard, allowed by the answer above.
      await page.goto(`${own.url}/dashboard`);
      await page.getByText("New paste").click();
      const form = page.getByRole("form", { name: "New paste" });
      await form.getByLabel("Text").fill('#!/usr/bin/env python3\nprint("first hour")\n');
      // Web uploads start at the operator's default privacy (unlisted).
      await expect(form.getByLabel("Paste privacy")).toHaveValue("unlisted");
      await form.getByRole("button", { name: "Create paste" }).click();
      const created = form.getByRole("status").getByRole("link");
      await expect(created).toBeVisible({ timeout: 30_000 });
      await page.goto(String(await created.getAttribute("href")));
      await expect(page.locator(".text-view-code")).toContainText('print("first hour")');
      // The language was detected from the text, as for an uploaded file.
      await expect(page.locator(".text-view")).toContainText("python");

      // The console: the environment's value is locked and says where it comes from.
      await page.goto(`${own.url}/admin/settings`);
      await fitsWidth(page);
      if (label === "desktop") {
        await screenshots(page, "admin-settings");
        await page.setViewportSize({ width, height });
      }
      const siteName = page.locator('[data-setting="SITE_NAME"]');
      await expect(siteName).toHaveAttribute("data-source", "environment");
      await expect(siteName.getByRole("textbox")).toBeDisabled();
      await expect(siteName).toContainText("Set in the environment (SITE_NAME)");
      await expect(page.locator('[data-setting="UPLOAD_FILES"]')).toHaveAttribute("data-source", "console");
      await expect(page.locator('[data-setting="DATABASE_URL"]')).toHaveAttribute("data-locked", "true");
      // A bad value is refused naming its setting, and nothing of the form is saved.
      await page.getByLabel("Embed colour").evaluate((input: HTMLInputElement) => {
        input.type = "text";
        input.value = "not a colour";
      });
      await page.getByLabel("Registration").selectOption("closed");
      await page.getByRole("button", { name: "Save settings" }).click();
      await expect(page.getByText(/Nothing saved\. Invalid setting EMBED_COLOR/)).toBeVisible();
      await expect(page.locator('[data-setting="REGISTRATION"]')).toHaveAttribute("data-source", "default");
      // A good one applies at once: sign-up closes.
      await page.getByLabel("Registration").selectOption("closed");
      await page.getByRole("button", { name: "Save settings" }).click();
      await expect(page.getByRole("status")).toContainText("Saved REGISTRATION");
      // Asked signed out (the page's cookie would send an account to its dashboard).
      const register = await fetch(`${own.url}/register`);
      expect(await register.text()).toContain("Sign-up is closed on this server");
      expect(await (await fetch(own.url)).text()).not.toContain(">Create account</a>");
    } finally {
      await context.close();
      await own.server.stop();
    }
  });
}
