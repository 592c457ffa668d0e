/** Registration, sign-in and sign-out in the browser; the web sign-in is a listed session. */
import { expect, test } from "@playwright/test";
import { createUser, signIn, uniqueName } from "./support";

test("register, sign out, sign in with the same account", async ({ page }) => {
  const username = uniqueName("reg");
  await page.goto("/register");
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Email").fill(`${username}@example.com`);
  await page.getByLabel("Password").fill("a good long password");
  await page.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL((url) => !url.pathname.startsWith("/register"));
  const account = page.locator("summary").filter({ hasText: `Signed in as ${username}` });
  await expect(account).toBeVisible();

  // The web session is a Relay session: listed, and the API accepts the cookie same-origin.
  const sessions = await page.evaluate(async () => (await fetch("/relay/sessions")).json());
  expect(JSON.stringify(sessions)).toContain("Web: ");

  await page.goto("/signout");
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByRole("link", { name: "Sign in", exact: true }).first()).toBeVisible();
  const after = await page.evaluate(async () => (await fetch("/relay/users/@me")).status);
  expect(after).toBe(401);

  await signIn(page, `${username}@example.com`, "a good long password");
  await expect(page.locator("summary").filter({ hasText: `Signed in as ${username}` })).toBeVisible();
});

test("wrong password is refused in words; signing the session out ends the web session", async ({ page }) => {
  const user = await createUser();
  await page.goto("/signin");
  await page.getByLabel("Username or email").fill(user.username);
  await page.getByLabel("Password").fill("not the password");
  await page.getByRole("button", { name: "Sign in" }).click();
  // A password check (scrypt, 128 MiB) takes seconds on a loaded machine: no 10 s default here.
  await expect(page.locator("#signin-error")).toHaveText("Wrong username, email or password.", { timeout: 60_000 });

  await signIn(page, user.username, user.password);
  const me = await page.evaluate(async () => (await fetch("/relay/users/@me")).json());
  const list = await page.evaluate(async () => (await fetch("/relay/sessions")).json());
  const web = (list.sessions as { id: string; name: string }[]).find((s) => s.name.startsWith("Web: "));
  expect(me.id).toBeTruthy();
  expect(web).toBeTruthy();
  const status = await page.evaluate(async (id) => (await fetch(`/relay/sessions/${id}`, { method: "DELETE" })).status, web!.id);
  expect(status).toBe(200);
  await page.goto("/signin");
  // Signed out: the sign-in form is shown again instead of a redirect.
  await expect(page.getByLabel("Username or email")).toBeVisible();
});
