/**
 * Passkeys in the browser (docs/passkeys.md) with Chromium's virtual authenticator (CDP
 * WebAuthn domain: CTAP2, resident keys, user verification): register one in the settings,
 * rename it, sign out, sign in with it alone (no username, no password), delete it, and a
 * deleted passkey no longer signs in. On a server of its own at http://localhost (own-server.ts).
 */
import { expect, test } from "@playwright/test";
import { adminOn, createAndSignIn, signOutThroughPage, startLocalhostServer, type LocalhostServer } from "./own-server";

let own: LocalhostServer;

test.beforeAll(async () => {
  test.setTimeout(600_000);
  own = await startLocalhostServer();
});

test.afterAll(async () => {
  await own?.server.stop();
});

test("register a passkey in the settings, sign in with it, delete it", async ({ page }) => {
  test.setTimeout(180_000);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });

  const username = await createAndSignIn(page, own);
  await page.goto(`${own.url}/dashboard/settings`);
  const section = page.getByRole("region", { name: "Passkeys" });
  await section.getByLabel("Passkey name").fill("Test key");
  await section.getByRole("button", { name: "Add a passkey" }).click();
  await expect(section.getByRole("status")).toHaveText("Passkey added.");
  const list = section.getByRole("list", { name: "Passkeys" });
  await expect(list.getByRole("listitem")).toHaveCount(1);
  await expect(list.getByRole("listitem")).toContainText("Test key");
  await expect(list.getByRole("listitem")).toContainText("never used");

  page.once("dialog", (dialog) => void dialog.accept("Laptop"));
  await list.getByRole("button", { name: "Rename Test key" }).click();
  await expect(list.getByRole("listitem")).toContainText("Laptop");

  // The authenticator now holds one discoverable credential for this site.
  const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
  expect(credentials).toHaveLength(1);
  expect(credentials[0].isResidentCredential).toBe(true);

  await signOutThroughPage(page, own.url);
  await page.goto(`${own.url}/signin`);
  await page.getByRole("button", { name: "Use a passkey" }).click();
  await page.waitForURL((url) => !url.pathname.startsWith("/signin"), { timeout: 30_000 });
  await expect(page.locator("summary").filter({ hasText: `Signed in as ${username}` })).toBeVisible();
  // A web session like any other sign-in.
  const sessions = await page.evaluate(async () => (await fetch("/relay/sessions")).json());
  expect(JSON.stringify(sessions)).toContain("Web: ");

  // The same passkey gives a Relay client a relay-key (POST /relay/auth/passkey-login).
  const relayLogin = () =>
    page.evaluate(async () => {
      const fromB64 = (s: string) =>
        Uint8Array.from(
          atob(
            s
              .replace(/-/g, "+")
              .replace(/_/g, "/")
              .padEnd(Math.ceil(s.length / 4) * 4, "="),
          ),
          (c) => c.charCodeAt(0),
        );
      const toB64 = (b: ArrayBuffer) =>
        btoa(String.fromCharCode(...new Uint8Array(b)))
          .replace(/\+/g, "-")
          .replace(/\//g, "_")
          .replace(/=+$/, "");
      const { options } = await (await fetch("/relay/auth/passkey-login/options", { method: "POST" })).json();
      const credential = (await navigator.credentials.get({
        publicKey: { challenge: fromB64(options.challenge), rpId: options.rpId, userVerification: "required", timeout: options.timeout },
      })) as PublicKeyCredential;
      const response = credential.response as AuthenticatorAssertionResponse;
      const body = {
        device: "Passkey test",
        response: {
          id: credential.id,
          rawId: toB64(credential.rawId),
          type: "public-key",
          clientExtensionResults: {},
          response: {
            clientDataJSON: toB64(response.clientDataJSON),
            authenticatorData: toB64(response.authenticatorData),
            signature: toB64(response.signature),
            userHandle: response.userHandle ? toB64(response.userHandle) : undefined,
          },
        },
      };
      const reply = await fetch("/relay/auth/passkey-login", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const json = await reply.json();
      if (reply.status !== 200) return { status: reply.status, error: json.error?.type };
      // The key works on its own, without the cookie.
      const me = await fetch("/relay/users/@me", { headers: { "relay-key": json.key }, credentials: "omit" });
      return { status: reply.status, session: json.session, me: me.status, username: (await me.json()).username };
    });
  expect(await relayLogin()).toMatchObject({ status: 200, me: 200, username, session: { name: "Passkey test", current: true } });
  // A suspended account is refused after the passkey checks out.
  await adminOn(own, "user", "suspend", "--user", username);
  expect(await relayLogin()).toEqual({ status: 403, error: "suspended" });
  await adminOn(own, "user", "unsuspend", "--user", username);

  await page.goto(`${own.url}/dashboard/settings`);
  const after = page.getByRole("region", { name: "Passkeys" }).getByRole("list", { name: "Passkeys" });
  await expect(after.getByRole("listitem")).toContainText(/ · used /);
  // A passkey added minutes ago signs in but does not confirm (docs/security.md): deleting a
  // factor asks for the password first.
  await after.getByRole("button", { name: "Delete Laptop" }).click();
  const region = page.getByRole("region", { name: "Passkeys" });
  await region.getByLabel(/Password or code/).fill("correct horse battery");
  await region.getByRole("button", { name: "Confirm it is you" }).click();
  await expect(region.getByRole("status")).toHaveText("Confirmed for 10 minutes; try again.");
  await after.getByRole("button", { name: "Delete Laptop" }).click();
  await expect(after.getByRole("listitem")).toHaveCount(0);

  // The authenticator still has the credential, but the server no longer knows it.
  await signOutThroughPage(page, own.url);
  await page.goto(`${own.url}/signin`);
  await page.getByRole("button", { name: "Use a passkey" }).click();
  await expect(page.locator("#signin-error")).toHaveText("That passkey was not recognised.");
  await expect(page).toHaveURL(/\/signin/);
});
