/**
 * Pages that cannot be turned against their users (issue 18 §4, docs/security-headers.md),
 * through the real production server: every HTML page's security headers (including pages
 * replayed by the robots' page cache), framing rules, cross-origin refusal of page
 * mutations (server actions), throttled web sign-in and sign-up with the error the form
 * shows, and the upgrade of an old password hash on web sign-in.
 */
import { execFile } from "node:child_process";
import { get as httpGet, type IncomingMessage } from "node:http";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOGIN_ACCOUNT_LIMIT } from "@/lib/auth/attempts";
import { hashPassword, verifyPassword } from "@/lib/crypto/password";
import { fixture } from "../support/media";
import { freePort, startTestServer, type TestServer } from "../support/server";
import { serverApp, serverUser } from "../support/server-accounts";

const run = promisify(execFile);
const PASSWORD = "correct horse battery";
const BROWSER_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const DISCORD_UA = "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)";

async function admin(dataDir: string, ...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, ["scripts/launch.mjs", "admin", ...args], {
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "" },
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

/** The policy's directives by name. */
function directives(policy: string | null): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const part of (policy ?? "").split(";")) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) map.set(name.toLowerCase(), values);
  }
  return map;
}

/** Checks the headers every page has; returns the policy's nonce. */
function expectPageHeaders(res: Response, where: string): string {
  const csp = directives(res.headers.get("content-security-policy"));
  const scripts = csp.get("script-src") ?? [];
  const nonce = scripts.find((v) => v.startsWith("'nonce-"));
  expect(nonce, `${where}: script-src ${scripts.join(" ")}`).toMatch(/^'nonce-[A-Za-z0-9+/]{22}==?'$/);
  expect(scripts).toContain("'strict-dynamic'");
  expect(scripts, where).not.toContain("'unsafe-eval'");
  expect(scripts, where).not.toContain("'unsafe-inline'");
  expect(csp.get("object-src"), where).toEqual(["'none'"]);
  expect(csp.get("base-uri"), where).toEqual(["'none'"]);
  expect(csp.get("form-action"), where).toEqual(["'self'"]);
  expect(csp.get("default-src"), where).toEqual(["'self'"]);
  expect(res.headers.get("referrer-policy"), where).toBe("strict-origin-when-cross-origin");
  expect(res.headers.get("x-content-type-options"), where).toBe("nosniff");
  const permissions = (res.headers.get("permissions-policy") ?? "").split(/,\s*/);
  for (const feature of ["camera=()", "microphone=()", "geolocation=()", "payment=()", "usb=()"])
    expect(permissions, where).toContain(feature);
  return nonce!.slice("'nonce-".length, -1);
}

function expectUnframeable(res: Response, where: string): void {
  expect(directives(res.headers.get("content-security-policy")).get("frame-ancestors"), where).toEqual(["'none'"]);
  expect(res.headers.get("x-frame-options"), where).toBe("DENY");
}

/** next-auth's credentials sign-in as its browser client does it; returns the error shown, or null. */
async function webCredentials(base: string, provider: "credentials" | "register", fields: Record<string, string>) {
  const csrf = await fetch(`${base}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const cookie = csrf.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const res = await fetch(`${base}/api/auth/callback/${provider}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie, "user-agent": BROWSER_UA },
    body: new URLSearchParams({ ...fields, csrfToken, callbackUrl: `${base}/dashboard`, json: "true" }),
  });
  // next-auth answers 200 with the page to go to, or 401 with the error page's URL.
  expect([200, 401]).toContain(res.status);
  const { url } = (await res.json()) as { url: string };
  return { error: new URL(url).searchParams.get("error"), cookies: res.headers.getSetCookie() };
}

describe("pages through the real server", () => {
  let server: TestServer;
  let code: string;
  let fileUrl: string;

  beforeAll(async () => {
    const port = await freePort();
    server = await startTestServer({ PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, DATABASE_URL: "" });
    const database = { env: { DATA_DIR: server.dataDir, DATABASE_URL: "" } };
    await serverUser(database, "pages_user");
    const key = (await serverApp(database, "pages_user", "t")).key;
    const body = new FormData();
    body.append("file", new Blob([await readFile(await fixture("png"))], { type: "image/png" }), "shot.png");
    const res = await fetch(`${server.url}/api/upload`, { method: "POST", body, headers: { "api-key": key, "post-privacy": "public" } });
    const reply = (await res.json()) as { url: string; post: { code: string } };
    expect(res.status, JSON.stringify(reply)).toBe(200);
    code = reply.post.code;
    fileUrl = reply.url;
  }, 240_000);
  afterAll(async () => {
    if (server) await server.stop();
  });

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, { redirect: "manual", headers: { "user-agent": BROWSER_UA, ...headers } });

  it("every page carries the policy and the hardening headers, and no HSTS over http", async () => {
    for (const path of [
      "/",
      "/signin",
      "/register",
      "/dashboard",
      "/dashboard/apps",
      "/discover",
      "/discover/gifs",
      `/p/${code}`,
      "/p/zzzzzzzz",
      "/no-such-page",
    ]) {
      const res = await get(path);
      expect(res.headers.get("content-type") ?? "text/html", path).toMatch(/text\/html|^$/);
      expectPageHeaders(res, path);
      expect(res.headers.get("strict-transport-security"), path).toBeNull();
      await res.arrayBuffer();
    }
  });

  it("/s/{code} keeps its documented Referrer-Policy: no-referrer (issue 39 §4), as do the token pages", async () => {
    const key = (await serverApp({ env: { DATA_DIR: server.dataDir, DATABASE_URL: "" } }, "pages_user", "links")).key;
    const made = await fetch(`${server.url}/api/links`, {
      method: "POST",
      headers: { "api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ url: "https://example.com/target" }),
    });
    const { link } = (await made.json()) as { link: { code: string } };
    expect(made.status).toBe(200);
    const redirect = await get(`/s/${link.code}`);
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get("location")).toBe("https://example.com/target");
    expect(redirect.headers.get("referrer-policy")).toBe("no-referrer");
    const gone = await get("/s/nosuchcode");
    expect(gone.status).toBe(404);
    expect(gone.headers.get("referrer-policy")).toBe("no-referrer");
    await gone.arrayBuffer();
    for (const path of ["/confirm-email?token=x", "/reset-password?token=x", "/cancel-email-change?token=x"]) {
      const res = await get(path);
      expect(res.headers.get("referrer-policy"), path).toBe("no-referrer");
      await res.arrayBuffer();
    }
  });

  it("every script of a page carries that response's nonce, and each response has its own", async () => {
    const first = await get("/signin");
    const nonce = expectPageHeaders(first, "/signin");
    const html = await first.text();
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
    const second = await get("/signin");
    expect(expectPageHeaders(second, "/signin again")).not.toBe(nonce);
    await second.arrayBuffer();
  });

  it("the dashboard, sign-in and registration refuse every frame; share pages may be framed", async () => {
    for (const path of ["/dashboard", "/dashboard/settings", "/signin", "/register", "/", "/discover"]) {
      const res = await get(path);
      expectUnframeable(res, path);
      await res.arrayBuffer();
    }
    const share = await get(`/p/${code}`);
    expect(share.status).toBe(200);
    expect(directives(share.headers.get("content-security-policy")).get("frame-ancestors")).toEqual(["*"]);
    expect(share.headers.get("x-frame-options")).toBeNull();
    await share.arrayBuffer();
  });

  it("a share page on a custom link domain is a share page for framing too", async () => {
    // proxy.ts rewrites /{code} on a possible link domain to the share page (docs/share-pages.md).
    // fetch() sends its own Host; node:http sends the one given.
    const linked = await new Promise<IncomingMessage>((done, fail) =>
      httpGet(`${server.url}/${code}`, { headers: { host: "links.example", "user-agent": BROWSER_UA } }, done).on("error", fail),
    );
    linked.resume();
    const linkedHeaders = new Headers(Object.entries(linked.headers).map(([k, v]) => [k, String(v)] as [string, string]));
    expectPageHeaders(new Response(null, { headers: linkedHeaders }), "link domain");
    expect(directives(linkedHeaders.get("content-security-policy")).get("frame-ancestors")).toEqual(["*"]);
    // The same path on our own host is no share page.
    const own = await get(`/${code}`);
    expect(own.status).toBe(404);
    expectUnframeable(own, "own host");
    await own.arrayBuffer();
  });

  it("a share page replayed to robots from memory has the same headers", async () => {
    const first = await get(`/p/${code}`, { "user-agent": DISCORD_UA });
    const nonce = expectPageHeaders(first, "robot, first");
    const body = await first.text();
    const again = await get(`/p/${code}`, { "user-agent": DISCORD_UA });
    expect(again.headers.get("x-mediahost-cache")).toBe("hit");
    // The page and its policy travel together: the recorded nonce is the one in the body.
    expect(expectPageHeaders(again, "robot, replayed")).toBe(nonce);
    expect(await again.text()).toBe(body);
    expect(again.headers.get("x-frame-options")).toBeNull();
  });

  it("sends next-auth's own HTML pages to ours, which carry the headers", async () => {
    for (const [path, target] of [
      ["/api/auth/signout", "/signout"],
      ["/api/auth/signin", "/signin"],
      ["/api/auth/error", "/signin"],
    ]) {
      const res = await get(path);
      expect([302, 307], path).toContain(res.status);
      expect(new URL(res.headers.get("location")!, server.url).pathname, path).toBe(target);
      await res.arrayBuffer();
    }
  });

  it("leaves the files' own headers alone", async () => {
    const res = await fetch(fileUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toMatch(/sandbox/);
    expect(res.headers.get("content-security-policy")).not.toMatch(/nonce-/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    await res.arrayBuffer();
  });

  describe("server actions posted from another origin", () => {
    const action = (headers: Record<string, string>) =>
      fetch(`${server.url}/dashboard/apps`, {
        method: "POST",
        redirect: "manual",
        headers: { "next-action": "0".repeat(42), "content-type": "text/plain;charset=UTF-8", accept: "text/x-component", ...headers },
        body: JSON.stringify(["Stolen", true]),
      });

    it("are refused with 403 forbidden before Next sees them", async () => {
      const cases: Record<string, string>[] = [
        { "sec-fetch-site": "cross-site", origin: "https://evil.example" },
        { "sec-fetch-site": "same-site", origin: "https://sub.example" },
        { origin: "https://evil.example" },
        {},
      ];
      for (const headers of cases) {
        const res = await action(headers);
        expect(res.status, JSON.stringify(headers)).toBe(403);
        const body = (await res.json()) as { error: { type: string } };
        expect(body.error.type).toBe("forbidden");
      }
    });

    it("and Next's own Origin check refuses what gets past a forged Sec-Fetch-Site", async () => {
      // A browser never sends this pair; it shows that Next checks Origin against Host by itself.
      const res = await action({ "sec-fetch-site": "same-origin", origin: "https://evil.example" });
      const text = await res.text();
      // Next refuses before looking the action up (it would log "Failed to find" otherwise).
      expect(res.status, text).toBe(500);
      expect(server.output()).toContain("Invalid Server Actions request");
      expect(server.output()).not.toContain("Failed to find Server Action");
      // A same-origin post reaches Next's action handling (an unknown action: not a 403 from us).
      const own = await action({ "sec-fetch-site": "same-origin", origin: server.url });
      expect(own.status).toBe(409);
      await own.arrayBuffer();
      expect(server.output()).toContain("Failed to find Server Action");
    });
  });

  describe("web sign-in and sign-up", () => {
    it("upgrades an old password hash on sign-in", async () => {
      await admin(server.dataDir, "user", "create", "--username", "old_hash", "--password", PASSWORD);
      const old = await hashPassword(PASSWORD, { N: 1 << 15, r: 8, p: 1 });
      const sqlite = new Database(join(server.dataDir, "mediahost.db"));
      try {
        sqlite.prepare(`UPDATE "User" SET "passwordHash" = ? WHERE "username" = ?`).run(old, "old_hash");
        const { error, cookies } = await webCredentials(server.url, "credentials", { login: "old_hash", password: PASSWORD });
        expect(error).toBeNull();
        expect(cookies.some((c) => c.startsWith("next-auth.session-token="))).toBe(true);
        const { passwordHash } = sqlite.prepare(`SELECT "passwordHash" FROM "User" WHERE "username" = ?`).get("old_hash") as {
          passwordHash: string;
        };
        expect(passwordHash.split("$").slice(1, 4)).toEqual(["131072", "8", "1"]);
        expect(await verifyPassword(PASSWORD, passwordHash)).toBe(true);
      } finally {
        sqlite.close();
      }
    });

    it(`refuses an account after ${LOGIN_ACCOUNT_LIMIT} failures with a message the form shows`, async () => {
      await admin(server.dataDir, "user", "create", "--username", "guessed", "--password", PASSWORD);
      // At once: each failure costs a full scrypt check, and the counting admits them all.
      const failures = await Promise.all(
        Array.from({ length: LOGIN_ACCOUNT_LIMIT }, (_, i) =>
          webCredentials(server.url, "credentials", { login: "guessed", password: `wrong ${i}` }),
        ),
      );
      for (const { error } of failures) expect(error).toBe("Wrong username, email or password.");
      const { error } = await webCredentials(server.url, "credentials", { login: "GUESSED", password: PASSWORD });
      expect(error).toMatch(/^Too many failed sign-in attempts; retry in \d+ s\.$/);
    }, 180_000);

    it("refuses sign-ups past the address's limit with a message the form shows", async () => {
      // Invalid names are refused before any hashing, and count all the same.
      let last: string | null = null;
      for (let i = 0; i < 11 && !last?.startsWith("Too many"); i++) {
        ({ error: last } = await webCredentials(server.url, "register", { username: `bad name ${i}`, password: PASSWORD }));
      }
      expect(last).toMatch(/^Too many sign-up attempts from this address; retry in \d+ s\.$/);
    });
  });
});

describe("over https", () => {
  it("pages add HSTS and upgrade-insecure-requests when PUBLIC_URL is https", async () => {
    const server = await startTestServer({ PUBLIC_URL: "https://media.example", DATABASE_URL: "" });
    try {
      const res = await fetch(`${server.url}/signin`, { redirect: "manual" });
      expectPageHeaders(res, "/signin");
      expect(res.headers.get("strict-transport-security")).toBe("max-age=63072000");
      expect(directives(res.headers.get("content-security-policy")).has("upgrade-insecure-requests")).toBe(true);
      await res.arrayBuffer();
    } finally {
      await server.stop();
    }
  }, 240_000);
});
