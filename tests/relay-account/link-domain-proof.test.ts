/**
 * A link domain is used only after its DNS proof (issue 27, docs/link-domains.md): a TXT
 * record `_mediahost.{domain}` with the account's token, looked up through DNS_RESOLVER,
 * here a DNS server of the test's own on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetEnv } from "@/lib/config/env";
import { useTestDatabase } from "../support/db";
import { startDns, type TestDns } from "../support/dns";
import { createTestPost, createTestUser } from "../support/fixtures";
import { api, relay } from "../support/http";

useTestDatabase();

let dns: TestDns;
beforeAll(async () => {
  dns = await startDns();
  process.env.DNS_RESOLVER = dns.address;
  resetEnv();
});
afterAll(async () => {
  delete process.env.DNS_RESOLVER;
  resetEnv();
  await dns.close();
});

const claim = (key: string, domain: string) => relay("/users/@me", { method: "PATCH", key, body: { link_domain: domain } });
const verify = (key: string) => relay("/users/@me/link-domain/verify", { method: "POST", key });

describe("link-domain proof", () => {
  it("is pending until the TXT record holds the account's token; then share URLs use it", async () => {
    const user = await createTestUser();
    const post = await createTestPost(user.id, { privacy: "public" });
    const domain = `links-${Date.now().toString(36)}.example.com`;
    expect((await claim(user.relayKey, domain)).status).toBe(200);

    const me = await relay("/users/@me", { key: user.relayKey });
    expect(me.body).toMatchObject({ link_domain: domain, link_domain_verified: false });
    const proof = me.body.link_domain_proof as { name: string; value: string };
    expect(proof.name).toBe(`_mediahost.${domain}`);
    expect(proof.value).toMatch(/^mediahost-verify=[A-Za-z0-9_-]{32}$/);
    // Pending: the share URL stays on the share host.
    expect((await api(`/posts/${post.code}`, { key: user.apiKey })).body.post.url).not.toContain(domain);

    const missing = await verify(user.relayKey);
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toContain(proof.name);
    // Another account's token (or any other text) proves nothing.
    dns.txt.set(proof.name, ["mediahost-verify=someone-elses-token-xxxxxxxxxxxxxx", "v=spf1 -all"]);
    expect((await verify(user.relayKey)).status).toBe(400);

    dns.txt.set(proof.name, ["v=spf1 -all", proof.value]);
    const verified = await verify(user.relayKey);
    expect(verified.status, verified.text).toBe(200);
    expect(verified.body.user).toMatchObject({ link_domain: domain, link_domain_verified: true });
    expect((await api(`/posts/${post.code}`, { key: user.apiKey })).body.post.url).toBe(`https://${domain}/${post.code}`);

    // Proven, it is the account's: nobody else can claim it. Changing it starts over.
    const other = await createTestUser();
    expect((await claim(other.relayKey, domain)).status).toBe(400);
    expect((await claim(user.relayKey, `other.${domain}`)).status).toBe(200);
    expect((await relay("/users/@me", { key: user.relayKey })).body.link_domain_verified).toBe(false);
  });

  it("pending claims are per user: another's claim neither blocks the owner nor clears the owner's (issue 39 §4)", async () => {
    const squatter = await createTestUser();
    const owner = await createTestUser();
    const domain = `taken-${Date.now().toString(36)}.example.com`;
    expect((await claim(owner.relayKey, domain)).status).toBe(200);
    expect((await claim(squatter.relayKey, domain)).status).toBe(200);
    // The owner's pending claim stays, with the TXT value only the owner was shown.
    const mine = (await relay("/users/@me", { key: owner.relayKey })).body;
    expect(mine.link_domain).toBe(domain);
    const theirs = (await relay("/users/@me", { key: squatter.relayKey })).body;
    expect(theirs.link_domain).toBe(domain);
    expect(theirs.link_domain_proof.value).not.toBe(mine.link_domain_proof.value);
    // The squatter's claim proves nothing with the owner's record.
    dns.txt.set(mine.link_domain_proof.name, [mine.link_domain_proof.value]);
    expect((await verify(squatter.relayKey)).status).toBe(400);
    expect((await verify(owner.relayKey)).status).toBe(200);
    // Once proven the domain is the owner's: no one else can claim or prove it.
    expect((await claim(squatter.relayKey, domain)).status).toBe(400);
    dns.txt.set(mine.link_domain_proof.name, [mine.link_domain_proof.value, theirs.link_domain_proof.value]);
    const late = await verify(squatter.relayKey);
    expect(late.status).toBe(400);
    expect(late.body.error.message).toMatch(/another account/);
  });
});
