/**
 * Issue 39 §4: short links cannot loop through the instance's other names, cannot carry a
 * user-info disguise, and a redirect chain that comes back is stopped (docs/short-links.md).
 */
import { describe, expect, it } from "vitest";
import { env, resetEnv } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { LOOP_VISITS } from "@/lib/links/links";
import { shortLinkResponse } from "@/lib/web/short-link";
import { useCounterStore } from "../support/counters";
import { useTestDatabase } from "../support/db";
import { createTestUser } from "../support/fixtures";
import { api } from "../support/http";

useTestDatabase();
useCounterStore({ perTest: true });

const create = (key: string, body: unknown) => api("/links", { method: "POST", key, body });

async function withEnv<T>(vars: Record<string, string>, work: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  resetEnv();
  try {
    return await work();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    resetEnv();
  }
}

describe("short-link targets the instance would answer itself", () => {
  it("refuses /s/ on every name of this instance, in any spelling", async () => {
    const user = await createTestUser();
    const port = new URL(env().PUBLIC_URL).port || "80";
    const refused = [
      `http://localhost:${port}/s/abcdefg`,
      "http://LOCALHOST./s/abcdefg",
      "http://app.localhost/s/abcdefg",
      "http://127.0.0.1/s/abcdefg",
      "http://127.8.9.10:3000/s/abcdefg",
      "http://2130706433/s/abcdefg",
      "http://0.0.0.0/s/abcdefg",
      "http://[::1]/s/abcdefg",
      "http://[::]/s/abcdefg",
      "http://[::ffff:127.0.0.1]/s/abcdefg",
      "http://[0:0:0:0:0:ffff:7f00:1]/S/abcdefg",
    ];
    for (const url of refused) {
      const reply = await create(user.apiKey, { url });
      expect(reply.status, url).toBe(400);
      expect(reply.body.error.message, url).toMatch(/short link of this service/);
    }
    // Other paths on those names are not short links.
    expect((await create(user.apiKey, { url: "http://localhost/p/abcdefghij" })).status).toBe(200);
  });

  it("refuses the API, CDN, share and short hosts, and proven link domains", async () => {
    await withEnv(
      {
        API_URL: "https://api.media.test/v3",
        CDN_URL: "https://cdn.media.test",
        SHARE_URL: "https://share.media.test/p",
        SHORT_URL: "https://go.media.test/l",
      },
      async () => {
        const user = await createTestUser();
        for (const host of ["api.media.test", "cdn.media.test", "share.media.test", "go.media.test"]) {
          expect((await create(user.apiKey, { url: `https://${host}/s/abcdefg` })).status, host).toBe(400);
        }
        // SHORT_URL's own path is a short link on its host only (a proxy there maps it onto /s/).
        expect((await create(user.apiKey, { url: "https://go.media.test/l/abcdefg" })).status).toBe(400);
        expect((await create(user.apiKey, { url: "https://api.media.test/l/abcdefg" })).status).toBe(200);
        expect((await create(user.apiKey, { url: "https://elsewhere.example/l/abcdefg" })).status).toBe(200);
      },
    );
    const owner = await createTestUser();
    const domain = `links-${owner.id.toLowerCase()}.example`;
    await db().user.update({ where: { id: owner.id }, data: { linkDomain: domain } });
    const user = await createTestUser();
    // A pending claim proves nothing: anyone could claim a popular domain.
    expect((await create(user.apiKey, { url: `https://${domain}/s/abcdefg` })).status).toBe(200);
    await db().user.update({ where: { id: owner.id }, data: { linkDomainVerifiedAt: new Date() } });
    expect((await create(user.apiKey, { url: `https://${domain}/s/abcdefg` })).status).toBe(400);
  });

  it("refuses a target with a user-info part", async () => {
    const user = await createTestUser();
    for (const url of ["https://example.com@evil.example/login", "https://user:pass@example.com/", "https://:x@example.com/"]) {
      const reply = await create(user.apiKey, { url });
      expect(reply.status, url).toBe(400);
      expect(reply.body.error.message).toMatch(/user name or password/);
    }
  });
});

describe("a redirect chain that comes back", () => {
  it("stops once the same client returns to the same code too often, before a click is spent", async () => {
    const user = await createTestUser();
    const { link } = (await create(user.apiKey, { url: "https://other-shortener.example/x", max_clicks: 100 })).body;
    const visit = (ip: string) => shortLinkResponse(link.code, new Headers({ "x-client-ip": ip }));
    for (let i = 0; i < LOOP_VISITS; i++) expect((await visit("198.51.100.20")).status).toBe(302);
    const stopped = await visit("198.51.100.20");
    expect(stopped.status).toBe(508);
    expect(stopped.headers.get("location")).toBeNull();
    expect(await stopped.text()).toContain("leads back to itself");
    expect((await db().shortLink.findUniqueOrThrow({ where: { code: link.code } })).clickCount).toBe(LOOP_VISITS);
    // Another client is not affected.
    expect((await visit("198.51.100.21")).status).toBe(302);
  });

  it("stops a stored target that leads back here now", async () => {
    const user = await createTestUser();
    const stored = await db().shortLink.create({ data: { code: "oldloop1", userId: user.id, url: "http://127.0.0.1/s/oldloop1" } });
    const res = await shortLinkResponse(stored.code, new Headers({ "x-client-ip": "198.51.100.30" }));
    expect(res.status).toBe(508);
  });
});
