/**
 * Accounts (issue 27): a forgotten password by mail (a real SMTP server in this process,
 * the link followed from the mail), changing the password in Settings, the suspended
 * dashboard, and `/signin?error=` showing only known messages; at 390 and 1280 px.
 */
import { expect, test, type Page } from "@playwright/test";
import { linkIn, startMailbox, type TestMailbox } from "../support/smtp";
import { admin, signIn, uniqueName } from "./support";

const WIDTHS = [390, 1280] as const;
const PASSWORD = "correct horse battery";
const NEW_PASSWORD = "a much better passphrase";

// Every sign-in and password change runs scrypt (128 MiB): seconds each on a loaded 2-core machine.
test.describe.configure({ timeout: 180_000 });

let mailbox: TestMailbox;
test.beforeAll(async () => {
  mailbox = await startMailbox(Number(process.env.E2E_PORT) + 1);
});
test.afterAll(() => mailbox.close());

async function userWithEmail(): Promise<{ username: string; email: string }> {
  const username = uniqueName("acct");
  const email = `${username.toLowerCase()}@example.com`;
  await admin("user", "create", "--username", username, "--password", PASSWORD, "--email", email);
  return { username, email };
}

async function at(page: Page, width: number): Promise<void> {
  await page.setViewportSize({ width, height: 844 });
}

for (const width of WIDTHS) {
  test(`forgot password: the mailed link sets a new one (${width} px)`, async ({ page }) => {
    await at(page, width);
    const user = await userWithEmail();
    await page.goto("/signin");
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await page.getByLabel("Username or email").fill(user.email);
    await page.getByRole("button", { name: "Send the link" }).click();
    await expect(page.getByRole("heading", { name: "Check your mail" })).toBeVisible();

    await page.goto(linkIn(await mailbox.next(user.email)));
    await page.getByLabel("New password", { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel("New password again").fill("something else entirely");
    await page.getByRole("button", { name: "Set the new password" }).click();
    await expect(page.locator("form").getByRole("alert")).toHaveText("The two passwords are not the same.");
    await page.getByLabel("New password", { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel("New password again").fill(NEW_PASSWORD);
    await page.getByRole("button", { name: "Set the new password" }).click();
    await expect(page.getByRole("heading", { name: "Password changed" })).toBeVisible();

    await signIn(page, user.username, NEW_PASSWORD);
    await expect(page.locator("summary").filter({ hasText: `Signed in as ${user.username}` })).toBeVisible();
  });
}

for (const width of WIDTHS) {
  test(`Settings: change the password and the email address; then suspended, the dashboard refuses changes (${width} px)`, async ({
    page,
  }) => {
    await at(page, width);
    const user = await userWithEmail();
    await signIn(page, user.username, PASSWORD);
    await page.goto("/dashboard/settings");
    const section = page.getByRole("region", { name: "Password" });
    await section.getByLabel("Current password").fill(PASSWORD);
    await section.getByLabel("New password", { exact: true }).fill(NEW_PASSWORD);
    await section.getByLabel("New password again").fill(NEW_PASSWORD);
    await section.getByRole("button", { name: "Change password" }).click();
    await expect(section.getByRole("status")).toHaveText("Password changed. 0 other sessions were signed out.", { timeout: 60_000 });

    // A new email address counts once the link mailed to it is followed.
    const email = page.getByRole("region", { name: "Email address" });
    const fresh = `new-${user.email}`;
    await email.getByLabel("New email address").fill(fresh);
    await email.getByLabel("Password (or a code from your app)").fill(NEW_PASSWORD);
    await email.getByRole("button", { name: "Change email address" }).click();
    await expect(email.getByRole("status")).toContainText(`A link is on its way to ${fresh}`, { timeout: 60_000 });
    await page.goto(linkIn(await mailbox.next(fresh)));
    await page.getByRole("button", { name: "Confirm" }).click();
    await expect(page.getByRole("heading", { name: "Email address confirmed" })).toBeVisible();

    await admin("user", "suspend", "--user", user.username);
    await page.goto("/dashboard/apps");
    await expect(page.getByTestId("suspended-notice")).toBeVisible();
    await page.getByLabel("App name").fill("After suspension");
    await page.getByRole("button", { name: "Create app" }).click();
    await expect(page.getByText("This account is suspended.").first()).toBeVisible();
  });
}

test("/signin?error= shows known messages only", async ({ page }) => {
  await page.goto(`/signin?error=${encodeURIComponent("Your account is locked: call +1 555 0100")}`);
  await expect(page.locator("#signin-error")).toHaveText("That sign-in did not work; please try again.");
  await expect(page.getByText("555 0100")).toHaveCount(0);
  await page.goto("/signin?error=suspended");
  await expect(page.locator("#signin-error")).toHaveText("This account is suspended.");
});
