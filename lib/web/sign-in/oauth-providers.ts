/** OAuth sign-in (docs/web-auth.md), linked by the provider's id for the person, never by email. */
import DiscordProvider from "next-auth/providers/discord";
import GitHubProvider from "next-auth/providers/github";
import type { Provider } from "next-auth/providers/index";
import { env, type Env } from "@/lib/config/env";

type ProviderSettings = Pick<
  Env,
  | "GITHUB_CLIENT_ID"
  | "GITHUB_CLIENT_SECRET"
  | "DISCORD_CLIENT_ID"
  | "DISCORD_CLIENT_SECRET"
  | "OIDC_ISSUER"
  | "OIDC_CLIENT_ID"
  | "OIDC_CLIENT_SECRET"
  | "OIDC_NAME"
>;

export function oauthProviders(settings: ProviderSettings = env()): Provider[] {
  const providers: Provider[] = [];
  if (settings.GITHUB_CLIENT_ID && settings.GITHUB_CLIENT_SECRET) {
    providers.push(GitHubProvider({ clientId: settings.GITHUB_CLIENT_ID, clientSecret: settings.GITHUB_CLIENT_SECRET }));
  }
  if (settings.DISCORD_CLIENT_ID && settings.DISCORD_CLIENT_SECRET) {
    providers.push(DiscordProvider({ clientId: settings.DISCORD_CLIENT_ID, clientSecret: settings.DISCORD_CLIENT_SECRET }));
  }
  const oidc = oidcProvider(settings);
  if (oidc) providers.push(oidc);
  return providers;
}

/** A generic OpenID Connect issuer: discovery, code flow with PKCE and state, linked by `sub`. */
export function oidcProvider(settings: ProviderSettings = env()): Provider | null {
  // Trimmed, and the issuer without a trailing slash, by lib/config/env.ts.
  const { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: clientId, OIDC_CLIENT_SECRET: clientSecret } = settings;
  if (!issuer || !clientId || !clientSecret) return null;
  return {
    id: "oidc",
    name: settings.OIDC_NAME || "OpenID Connect",
    type: "oauth",
    wellKnown: `${issuer}/.well-known/openid-configuration`,
    issuer,
    clientId,
    clientSecret,
    idToken: true,
    checks: ["pkce", "state"],
    authorization: { params: { scope: "openid profile" } },
    async profile(claims: Record<string, unknown>, tokens: { access_token?: string }) {
      let name = nameClaim(claims);
      // Conforming issuers keep profile claims out of the ID token when an access token is
      // issued (OpenID Connect Core 5.4): they are at the userinfo endpoint then.
      if (!name && tokens.access_token) {
        const info = await userinfo(issuer, tokens.access_token);
        if (info && info.sub === claims.sub) name = nameClaim(info);
      }
      return { id: String(claims.sub), name: name ?? null, email: null };
    },
  } as Provider;
}

const nameClaim = (claims: Record<string, unknown>): string | undefined =>
  [claims.preferred_username, claims.nickname, claims.name].find((v): v is string => typeof v === "string" && v.length > 0);

async function userinfo(issuer: string, accessToken: string): Promise<Record<string, unknown> | null> {
  try {
    const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(5000) })).json()) as {
      userinfo_endpoint?: unknown;
    };
    if (typeof discovery.userinfo_endpoint !== "string") return null;
    const reply = await fetch(discovery.userinfo_endpoint, {
      headers: { authorization: `Bearer ${accessToken}` },
      signal: AbortSignal.timeout(5000),
    });
    return reply.ok ? ((await reply.json()) as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export function oauthProviderList(): { id: string; name: string }[] {
  return oauthProviders().map((provider) => ({ id: provider.id, name: provider.name }));
}
