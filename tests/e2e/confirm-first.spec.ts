/**
 * Issue 39 §1 in the browser: a session whose last confirmation is an hour old is asked to
 * confirm before it makes an app key, a webhook or an authenticator app (docs/security.md);
 * the "Confirm it is you" form takes the password, and the change then goes through.
 */
import { expect, type Page, test } from "@playwright/test";
import { createUser, type E2EUser, signIn, staleConfirmation } from "./support";

let user: E2EUser;

test.beforeAll(async () => {
  user = await createUser();
});

async function confirmWithPassword(page: Page): Promise<void> {
  await page.getByLabel(/Password or code/).fill(user.password);
  await page.getByRole("button", { name: "Confirm it is you" }).click();
}

test("a stale session confirms before a new app key, a webhook and an authenticator app", async ({ page }) => {
  test.setTimeout(180_000);
  await signIn(page, user.username, user.password);
  await staleConfirmation(user.username);

  // An app key.
  await page.goto("/dashboard/apps");
  await page.getByLabel("App name").fill("After confirming");
  await page.getByRole("button", { name: "Create app" }).click();
  await expect(page.getByText("Confirm it is you first")).toBeVisible();
  await expect(page.getByTestId("key-value")).toHaveCount(0);
  await confirmWithPassword(page);
  await expect(page.getByRole("button", { name: "Confirm it is you" })).toHaveCount(0, { timeout: 60_000 });
  await page.getByRole("button", { name: "Create app" }).click();
  await expect(page.getByTestId("key-value")).toHaveText(/^[A-Za-z0-9_-]{20,}$/);

  // A webhook (the e2e server allows receivers on 127.0.0.1: global-setup.ts).
  await staleConfirmation(user.username);
  await page.goto("/dashboard/webhooks");
  const form = page.getByRole("form", { name: "Add a webhook" });
  await form.getByLabel("Payload URL").fill("http://127.0.0.1:9/confirm-first");
  await form.getByRole("button", { name: "Add webhook" }).click();
  await expect(page.getByText("Confirm it is you first").first()).toBeVisible();
  await expect(page.getByTestId("webhook-secret")).toHaveCount(0);
  await confirmWithPassword(page);
  await expect(page.getByRole("button", { name: "Confirm it is you" })).toHaveCount(0, { timeout: 60_000 });
  await form.getByRole("button", { name: "Add webhook" }).click();
  await expect(page.getByTestId("webhook-secret")).toHaveText(/^whsec_/);

  // An authenticator app, after the confirmation goes stale again.
  await staleConfirmation(user.username);
  await page.goto("/dashboard/settings");
  const section = page.getByRole("region", { name: "Two-factor sign-in" });
  await section.getByRole("button", { name: "Set up an authenticator app" }).click();
  await expect(section.getByRole("alert")).toContainText("Confirm it is you first");
  await expect(section.getByTestId("totp-secret")).toHaveCount(0);
  await section.getByLabel(/Password or code/).fill(user.password);
  await section.getByRole("button", { name: "Confirm it is you" }).click();
  await expect(section.getByRole("status")).toHaveText("Confirmed for 10 minutes; try again.", { timeout: 60_000 });
  await section.getByRole("button", { name: "Set up an authenticator app" }).click();
  await expect(section.getByTestId("totp-secret")).toBeVisible();
});
