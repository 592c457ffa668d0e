/**
 * The sign-in providers offered (docs/web-auth.md) come from the settings lib/config/env.ts
 * parsed: GitHub, Discord and OpenID Connect each only when their id and secret are set,
 * values trimmed, the OIDC issuer without its trailing slash.
 */
import { describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/config/env";
import { oauthProviders, oidcProvider } from "@/lib/web/sign-in/oauth-providers";

const ids = (source: Record<string, string>) => oauthProviders(parseEnv(source)).map((p) => p.id);

describe("oauthProviders", () => {
  it("offers a provider only when both its id and its secret are set", () => {
    expect(ids({})).toEqual([]);
    expect(ids({ GITHUB_CLIENT_ID: "gh", DISCORD_CLIENT_SECRET: "dc" })).toEqual([]);
    expect(ids({ GITHUB_CLIENT_ID: "gh", GITHUB_CLIENT_SECRET: "s", DISCORD_CLIENT_ID: "dc", DISCORD_CLIENT_SECRET: " " })).toEqual([
      "github",
    ]);
    expect(
      ids({
        DISCORD_CLIENT_ID: "dc",
        DISCORD_CLIENT_SECRET: "s",
        OIDC_ISSUER: "https://id.example",
        OIDC_CLIENT_ID: "c",
        OIDC_CLIENT_SECRET: "s",
      }),
    ).toEqual(["discord", "oidc"]);
  });

  it("OpenID Connect: the issuer trimmed and without its trailing slash, the button's name defaulted", () => {
    const oidc = oidcProvider(parseEnv({ OIDC_ISSUER: " https://id.example/realms/x/ ", OIDC_CLIENT_ID: " c ", OIDC_CLIENT_SECRET: "s" }));
    expect(oidc).toMatchObject({
      id: "oidc",
      name: "OpenID Connect",
      issuer: "https://id.example/realms/x",
      wellKnown: "https://id.example/realms/x/.well-known/openid-configuration",
      clientId: "c",
    });
    expect(
      oidcProvider(parseEnv({ OIDC_ISSUER: "https://id.example", OIDC_CLIENT_ID: "c", OIDC_CLIENT_SECRET: "s", OIDC_NAME: "Keycloak" }))
        ?.name,
    ).toBe("Keycloak");
    expect(oidcProvider(parseEnv({ OIDC_ISSUER: "https://id.example", OIDC_CLIENT_ID: "c" }))).toBeNull();
  });
});
