/** Signed URLs for private files: what verifies, what is refused, where the secret lives. */
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { resetEnv } from "@/lib/config/env";
import {
  SIGNED_URL_TTL_SECONDS,
  checkSignedUrl,
  loadOrCreateSecretFile,
  resetSigningSecret,
  signPath,
  signUrl,
  signingSecret,
  verifySignature,
} from "@/lib/crypto/signing";

const SECRET = "test-secret-0123456789";
const PATH = "/cdn/f/abc123/def456.png";
const NOW = 1_800_000_000;
const EXP = NOW + SIGNED_URL_TTL_SECONDS;

function parts(query: string): { exp: string; sig: string } {
  const params = new URLSearchParams(query);
  return { exp: params.get("exp")!, sig: params.get("sig")! };
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe("signPath / verifySignature", () => {
  const { exp, sig } = parts(signPath(PATH, EXP, SECRET));

  it("signs as ?exp=<unix seconds>&sig=<base64url>, 24 hours by default", () => {
    expect(SIGNED_URL_TTL_SECONDS).toBe(86_400);
    expect(signPath(PATH, EXP, SECRET)).toMatch(/^\?exp=\d+&sig=[A-Za-z0-9_-]{43}$/);
    expect(exp).toBe(String(EXP));
  });

  it("accepts a valid signature before it expires", () => {
    expect(verifySignature(PATH, exp, sig, NOW, SECRET)).toBe(true);
    expect(verifySignature(PATH, Number(exp), sig, EXP - 1, SECRET)).toBe(true);
  });

  it("refuses an expired signature (at the expiry second and after)", () => {
    expect(verifySignature(PATH, exp, sig, EXP, SECRET)).toBe(false);
    expect(verifySignature(PATH, exp, sig, EXP + 3600, SECRET)).toBe(false);
  });

  it("refuses a tampered path", () => {
    expect(verifySignature("/cdn/f/abc123/def457.png", exp, sig, NOW, SECRET)).toBe(false);
    expect(verifySignature(`${PATH}x`, exp, sig, NOW, SECRET)).toBe(false);
    expect(verifySignature("/cdn/f/ABC123/def456.png", exp, sig, NOW, SECRET)).toBe(false);
  });

  it("refuses a tampered expiry", () => {
    expect(verifySignature(PATH, String(EXP + 1), sig, NOW, SECRET)).toBe(false);
    expect(verifySignature(PATH, `0${exp}`, sig, NOW, SECRET)).toBe(false);
    expect(verifySignature(PATH, `${exp}.0`, sig, NOW, SECRET)).toBe(false);
  });

  it("refuses a tampered or malformed signature", () => {
    const flipped = (sig[0] === "A" ? "B" : "A") + sig.slice(1);
    expect(verifySignature(PATH, exp, flipped, NOW, SECRET)).toBe(false);
    expect(verifySignature(PATH, exp, sig.slice(0, -1), NOW, SECRET)).toBe(false);
    expect(verifySignature(PATH, exp, `${sig}=`, NOW, SECRET)).toBe(false);
    expect(verifySignature(PATH, exp, `${sig.slice(0, -1)}+`, NOW, SECRET)).toBe(false);
    expect(verifySignature(PATH, exp, "", NOW, SECRET)).toBe(false);
    expect(verifySignature(PATH, exp, null, NOW, SECRET)).toBe(false);
    expect(verifySignature(PATH, null, sig, NOW, SECRET)).toBe(false);
    expect(verifySignature(PATH, "-5", sig, NOW, SECRET)).toBe(false);
  });

  it("refuses a signature made with another secret", () => {
    expect(verifySignature(PATH, exp, sig, NOW, "another-secret")).toBe(false);
  });
});

describe("signUrl / checkSignedUrl", () => {
  it("signs an absolute URL's path and checks a request URL", () => {
    const url = signUrl(`https://cdn.example.com${PATH}`, EXP, SECRET);
    expect(url).toMatch(/^https:\/\/cdn\.example\.com\/cdn\/f\/abc123\/def456\.png\?exp=\d+&sig=/);
    expect(checkSignedUrl(url, NOW, SECRET)).toEqual({ ok: true, expiresAt: EXP });
    expect(checkSignedUrl(url, EXP, SECRET)).toEqual({ ok: false, reason: "expired" });
    expect(checkSignedUrl(url.replace("def456", "def457"), NOW, SECRET)).toEqual({ ok: false, reason: "invalid" });
    expect(checkSignedUrl(`https://cdn.example.com${PATH}`, NOW, SECRET)).toEqual({ ok: false, reason: "unsigned" });
  });

  it("defaults to an expiry 24 hours from now", () => {
    const before = Math.floor(Date.now() / 1000);
    const exp = Number(new URL(signUrl(`https://x.test${PATH}`, undefined, SECRET)).searchParams.get("exp"));
    expect(exp - before).toBeGreaterThanOrEqual(SIGNED_URL_TTL_SECONDS);
    expect(exp - before).toBeLessThanOrEqual(SIGNED_URL_TTL_SECONDS + 2);
  });
});

describe("the signing secret", () => {
  const savedSecret = process.env.SIGNING_SECRET;
  const savedDataDir = process.env.DATA_DIR;
  afterEach(() => {
    if (savedSecret === undefined) delete process.env.SIGNING_SECRET;
    else process.env.SIGNING_SECRET = savedSecret;
    process.env.DATA_DIR = savedDataDir;
    resetEnv();
    resetSigningSecret();
  });

  it("is generated once, persisted 0600 under DATA_DIR, and reused after a restart", () => {
    const dir = mkdtempSync(join(tmpdir(), "mediahost-secret-"));
    dirs.push(dir);
    delete process.env.SIGNING_SECRET;
    process.env.DATA_DIR = join(dir, "data"); // does not exist yet
    resetEnv();
    resetSigningSecret();
    const first = signingSecret();
    expect(first.length).toBeGreaterThanOrEqual(43);
    const file = join(dir, "data", "signing-secret");
    expect(readFileSync(file, "utf8").trim()).toBe(first);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    resetSigningSecret(); // a "restart"
    expect(signingSecret()).toBe(first);
    expect(loadOrCreateSecretFile(join(dir, "data"))).toBe(first);
    // Nothing else left behind (the temp file used for the atomic create).
    expect(readFileSync(file, "utf8").split("\n").filter(Boolean)).toHaveLength(1);
  });

  it("SIGNING_SECRET wins over the file", () => {
    process.env.SIGNING_SECRET = "from-env-secret";
    resetEnv();
    resetSigningSecret();
    expect(signingSecret()).toBe("from-env-secret");
    const { exp, sig } = parts(signPath(PATH, EXP));
    expect(verifySignature(PATH, exp, sig, NOW)).toBe(true);
    expect(verifySignature(PATH, exp, sig, NOW, "other")).toBe(false);
  });
});
