/**
 * Generic OpenID Connect sign-in (docs/web-auth.md) against a real OpenID provider: the npm
 * `oidc-provider` (pinned dev dependency) started here with one confidential client that must
 * use PKCE, and its development login and consent pages. The server finds it through
 * discovery (OIDC_ISSUER). First sign-in creates the account (username from
 * preferred_username); the second lands in the same account, linked by `sub`.
 */
import { createServer, type Server } from "node:http";
import { expect, test } from "@playwright/test";
import Provider from "oidc-provider";
import { base32Decode, totpAt } from "../../lib/auth/factors/totp";
import { freePort, signOutThroughPage, startLocalhostServer, type LocalhostServer } from "./own-server";
import { uniqueName } from "./support";

let own: LocalhostServer;
let issuer: Server;
const CLIENT_SECRET = "test-secret-that-is-long-enough-0123456789";

test.beforeAll(async () => {
  test.setTimeout(600_000);
  const [appPort, issuerPort] = [await freePort(), await freePort()];
  const issuerUrl = `http://localhost:${issuerPort}`;
  const provider = new Provider(issuerUrl, {
    clients: [
      {
        client_id: "mediahost",
        client_secret: CLIENT_SECRET,
        redirect_uris: [`http://localhost:${appPort}/api/auth/callback/oidc`],
        grant_types: ["authorization_code"],
        response_types: ["code"],
      },
    ],
    pkce: { required: () => true },
    claims: { openid: ["sub"], profile: ["preferred_username"] },
    // The development login page accepts any login; it becomes the account's `sub`.
    findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id, preferred_username: id }) }),
    cookies: { keys: ["e2e-cookie-key"] },
  });
  issuer = createServer(provider.callback());
  await new Promise<void>((done) => issuer.listen(issuerPort, "127.0.0.1", done));
  own = await startLocalhostServer(
    { OIDC_ISSUER: issuerUrl, OIDC_CLIENT_ID: "mediahost", OIDC_CLIENT_SECRET: CLIENT_SECRET, OIDC_NAME: "Test IdP" },
    appPort,
  );
});

test.afterAll(async () => {
  await own?.server.stop();
  await new Promise((done) => issuer?.close(done));
});

async function throughIssuer(page: import("@playwright/test").Page, login: string): Promise<void> {
  await page.goto(`${own.url}/signin`);
  await page.getByRole("button", { name: "Continue with Test IdP" }).click();
  await page.getByPlaceholder("Enter any login").fill(login);
  await page.getByPlaceholder("and password").fill("anything");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.waitForURL((url) => url.origin === own.url && !url.pathname.startsWith("/signin"), { timeout: 30_000 });
}

test("sign in through an OpenID provider; the second sign-in is the same account; two-factor still asks for the code", async ({ page }) => {
  test.setTimeout(120_000);
  const login = uniqueName("oidc");
  const requests: string[] = [];
  page.on("request", (request) => requests.push(request.url()));
  await throughIssuer(page, login);
  await expect(page.locator("summary").filter({ hasText: `Signed in as ${login}` })).toBeVisible();
  // The authorization request carried a PKCE challenge (S256) and state.
  const authorize = new URL(requests.find((u) => u.includes("/auth?") && u.includes("client_id=mediahost"))!);
  expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
  expect(authorize.searchParams.get("code_challenge")).toBeTruthy();
  expect(authorize.searchParams.get("state")).toBeTruthy();
  const me = await page.evaluate(async () => (await fetch("/relay/users/@me")).json());

  // Signing out here leaves the issuer's own session: the second sign-in comes straight back.
  await signOutThroughPage(page, own.url);
  await page.goto(`${own.url}/signin`);
  await page.getByRole("button", { name: "Continue with Test IdP" }).click();
  await page.waitForURL((url) => url.origin === own.url && !url.pathname.startsWith("/signin"), { timeout: 30_000 });
  const again = await page.evaluate(async () => (await fetch("/relay/users/@me")).json());
  expect(again.id).toBe(me.id);
  await expect(page.locator("summary").filter({ hasText: `Signed in as ${login}` })).toBeVisible();

  // With two-factor sign-in on, the provider's sign-in stands for the password only: the
  // code is still asked for (docs/two-factor.md).
  const setup = await page.evaluate(async () => (await fetch("/relay/auth/two-factor/totp", { method: "POST" })).json());
  const secret = base32Decode(setup.secret)!;
  const confirmed = await page.evaluate(
    async (code) =>
      (
        await fetch("/relay/auth/two-factor/totp/confirm", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ code }),
        })
      ).status,
    totpAt(secret, Date.now()),
  );
  expect(confirmed).toBe(200);
  await signOutThroughPage(page, own.url);
  await page.goto(`${own.url}/signin`);
  await page.getByRole("button", { name: "Continue with Test IdP" }).click();
  await expect(page.getByLabel("Authentication code")).toBeVisible({ timeout: 30_000 });
  expect(new URL(page.url()).searchParams.get("ticket")).toBeTruthy();
  // No session yet: the cookie does not sign the API in.
  expect(await page.evaluate(async () => (await fetch("/relay/users/@me")).status)).toBe(401);
  await page.getByLabel("Authentication code").fill(totpAt(secret, Date.now() + 30_000));
  await page.getByRole("button", { name: "Verify" }).click();
  await page.waitForURL((url) => !url.pathname.startsWith("/signin"), { timeout: 30_000 });
  await expect(page.locator("summary").filter({ hasText: `Signed in as ${login}` })).toBeVisible();
});
