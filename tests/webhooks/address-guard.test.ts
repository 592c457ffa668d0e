/** The SSRF guard's rules (docs/webhooks.md, "Address guard"), and the signature helpers. */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { embeddedIpv4, isAllowedAddress, resolveWebhookTarget } from "@/lib/webhooks/address-guard";
import { sendWebhook } from "@/lib/webhooks/send";
import { signPayload, verifySignature } from "@/lib/webhooks/signature";

describe("isAllowedAddress", () => {
  it.each([
    "127.0.0.1",
    "127.255.255.254",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.0.10",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "224.0.0.1",
    "255.255.255.255",
    "::1",
    "::",
    "fe80::1",
    "fc00::1",
    "fd12:3456::1",
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:169.254.169.254",
    "::ffff:10.0.0.1",
    "::127.0.0.1",
    "64:ff9b::a9fe:a9fe", // NAT64 of 169.254.169.254
    "2002:7f00:1::", // 6to4 of 127.0.0.1
  ])("refuses %s", (address) => {
    expect(isAllowedAddress(address)).toBe(false);
  });

  it.each(["93.184.215.14", "8.8.8.8", "172.32.0.1", "2606:4700::6810:85e5", "::ffff:8.8.8.8", "64:ff9b::808:808"])(
    "allows %s",
    (address) => {
      expect(isAllowedAddress(address)).toBe(true);
    },
  );

  it("refuses what is not an address", () => {
    expect(isAllowedAddress("example.com")).toBe(false);
  });

  it("lets the operator allow everything, or listed addresses and ranges", () => {
    expect(isAllowedAddress("10.1.2.3", { allowPrivate: true })).toBe(true);
    expect(isAllowedAddress("::1", { allowPrivate: true })).toBe(true);
    const allowList = ["10.0.0.0/8", "127.0.0.1", "fd00::/8"];
    expect(isAllowedAddress("10.200.0.1", { allowList })).toBe(true);
    expect(isAllowedAddress("127.0.0.1", { allowList })).toBe(true);
    expect(isAllowedAddress("127.0.0.2", { allowList })).toBe(false);
    expect(isAllowedAddress("fd00::5", { allowList })).toBe(true);
    expect(isAllowedAddress("169.254.169.254", { allowList })).toBe(false);
    expect(isAllowedAddress("::ffff:10.1.1.1", { allowList })).toBe(true);
  });

  it("reads the IPv4 address inside IPv6 forms", () => {
    expect(embeddedIpv4("::ffff:1.2.3.4")).toBe("1.2.3.4");
    expect(embeddedIpv4("::ffff:0102:0304")).toBe("1.2.3.4");
    expect(embeddedIpv4("64:ff9b::1.2.3.4")).toBe("1.2.3.4");
    expect(embeddedIpv4("2002:0102:0304::1")).toBe("1.2.3.4");
    expect(embeddedIpv4("2606:4700::1")).toBeNull();
  });
});

describe("resolveWebhookTarget", () => {
  it("refuses literal and resolved private addresses with forbidden", async () => {
    for (const url of ["http://127.0.0.1/x", "http://[::1]/x", "http://169.254.169.254/", "http://localhost:9/x", "http://2130706433/x"]) {
      await expect(resolveWebhookTarget(url), url).rejects.toMatchObject({ type: "forbidden" });
    }
  });

  it("refuses other schemes, credentials and hosts that do not resolve with invalid_request", async () => {
    for (const url of ["file:///etc/passwd", "gopher://example.com/", "http://a:b@example.com/", "http://no-such-host.invalid/"]) {
      await expect(resolveWebhookTarget(url), url).rejects.toMatchObject({ type: "invalid_request" });
    }
  });

  it("pins the checked address: the connection goes there whatever the name resolves to later", async () => {
    const server = createServer((req, res) => res.end(`host=${req.headers.host}`));
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const { port } = server.address() as AddressInfo;
    try {
      // A name that resolves nowhere: only the pinned address can reach the server.
      const target = { url: new URL(`http://rebind.invalid:${port}/hook`), address: "127.0.0.1", family: 4 as const };
      const result = await sendWebhook(target, {}, "{}", 5000);
      expect(result).toEqual({ status: 200, snippet: `host=rebind.invalid:${port}` });
    } finally {
      server.close();
    }
  });

  it("does not follow redirects", async () => {
    let hits = 0;
    const server = createServer((_req, res) => {
      hits++;
      res.writeHead(302, { location: "http://169.254.169.254/" }).end();
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const { port } = server.address() as AddressInfo;
    try {
      const target = await resolveWebhookTarget(`http://127.0.0.1:${port}/`, { allowList: ["127.0.0.1"] });
      expect((await sendWebhook(target, {}, "{}", 5000)).status).toBe(302);
      expect(hits).toBe(1);
    } finally {
      server.close();
    }
  });
});

describe("signatures", () => {
  it("is v1= hex HMAC-SHA256 over `${timestamp}.${body}`", () => {
    // Fixed vector, computed independently: printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac whsec_test
    expect(signPayload("whsec_test", 1700000000, '{"a":1}')).toBe("v1=38877139021993b830af32feea6e18a8da83eb2f6e49ee50bd9e4cf4ca4d3789");
  });

  it("verifies within the tolerance only, and any of several signatures", () => {
    const body = '{"a":1}';
    const sig = signPayload("whsec_test", 1700000000, body);
    expect(verifySignature("whsec_test", sig, "1700000000", body, 300, 1700000100)).toBe(true);
    expect(verifySignature("whsec_test", sig, "1700000000", body, 300, 1700000400)).toBe(false);
    expect(verifySignature("whsec_other", sig, "1700000000", body, 300, 1700000100)).toBe(false);
    expect(verifySignature("whsec_test", `v1=00 ${sig}`, "1700000000", body, 300, 1700000100)).toBe(true);
    expect(verifySignature("whsec_test", sig, "abc", body, 300, 1700000100)).toBe(false);
  });
});
