/**
 * Two-factor sign-in in the browser (docs/two-factor.md): set up an authenticator app in
 * the settings (the test computes the codes the app would show from the key on the page),
 * sign out, sign in needing a code, a recovery code works once.
 */
import { expect, test, type Page } from "@playwright/test";
import { base32Decode, totpAt } from "../../lib/auth/factors/totp";
import { createUser, signIn } from "./support";

// Password checks (scrypt, 128 MiB) take seconds on a loaded machine.
const SLOW = { timeout: 60_000 };

async function signOut(page: Page): Promise<void> {
  await page.goto("/signout");
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByRole("link", { name: "Sign in", exact: true }).first()).toBeVisible();
}

/** The password step; leaves the form at the code step. */
async function passwordStep(page: Page, login: string, password: string): Promise<void> {
  await page.goto("/signin");
  await page.getByLabel("Username or email").fill(login);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByLabel("Authentication code")).toBeVisible(SLOW);
}

async function codeStep(page: Page, code: string): Promise<void> {
  await page.getByLabel("Authentication code").fill(code);
  await page.getByRole("button", { name: "Verify" }).click();
}

test("enrol an authenticator app, then sign-in needs a code; a recovery code works once", async ({ page }) => {
  test.setTimeout(240_000);
  const user = await createUser();
  await signIn(page, user.username, user.password);
  await page.goto("/dashboard/settings");
  const section = page.getByRole("region", { name: "Two-factor sign-in" });
  await expect(section.getByText("Status: off")).toBeVisible();
  await section.getByRole("button", { name: "Set up an authenticator app" }).click();
  const key = (await section.getByTestId("totp-secret").textContent())!.trim();
  // The QR code beside the key (server-drawn SVG, issue 27 §3) is shown and loads.
  const qr = section.getByRole("img", { name: "QR code of the authenticator app's key" });
  await expect(qr).toBeVisible();
  expect(await qr.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
  const secret = base32Decode(key)!;
  expect(secret.length).toBe(20);
  await expect(section.getByRole("link", { name: "Open in authenticator app" })).toHaveAttribute("href", /^otpauth:\/\/totp\//);

  // A wrong code does not turn it on.
  const right = totpAt(secret, Date.now());
  await section.getByLabel("Code from the app").fill(String((Number(right) + 1) % 1_000_000).padStart(6, "0"));
  await section.getByRole("button", { name: "Turn on" }).click();
  await expect(section.getByRole("alert")).toContainText("not right");
  await section.getByLabel("Code from the app").fill(totpAt(secret, Date.now()));
  await section.getByRole("button", { name: "Turn on" }).click();
  const list = section.getByRole("list", { name: "Recovery codes" });
  await expect(list.getByRole("listitem")).toHaveCount(10);
  const codes = (await list.getByRole("listitem").allTextContents()).map((c) => c.trim());
  await expect(section.getByText("Status: on")).toBeVisible();

  // Password alone is no longer enough: the form asks for a code, and a wrong one is refused.
  await signOut(page);
  await passwordStep(page, user.username, user.password);
  await codeStep(page, "000000" === totpAt(secret, Date.now()) ? "111111" : "000000");
  await expect(page.locator("#signin-error")).toContainText("not right");
  // The step used to confirm is spent (replay guard): the app's next code signs in.
  await codeStep(page, totpAt(secret, Date.now() + 30_000));
  await page.waitForURL((url) => !url.pathname.startsWith("/signin"), SLOW);
  await expect(page.locator("summary").filter({ hasText: `Signed in as ${user.username}` })).toBeVisible();

  // A recovery code instead of the app, once.
  await signOut(page);
  await passwordStep(page, user.username, user.password);
  await codeStep(page, codes[0]);
  await page.waitForURL((url) => !url.pathname.startsWith("/signin"), SLOW);
  await page.goto("/dashboard/settings");
  await expect(page.getByRole("region", { name: "Two-factor sign-in" }).getByText("9 recovery codes left")).toBeVisible();

  await signOut(page);
  await passwordStep(page, user.username, user.password);
  await codeStep(page, codes[0]);
  await expect(page.locator("#signin-error")).toContainText("already used");
  await expect(page).toHaveURL(/\/signin/);
});
