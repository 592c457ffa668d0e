/**
 * Hostile input, generated (docs/fuzzing.md): fast-check requests against the real server
 * over raw sockets. `npm test` runs FUZZ_RUNS (default 2 000) cases from a fixed seed;
 * `npm run fuzz` runs 20 000 from a printed random seed (FUZZ_SEED replays one).
 * FUZZ_COLLECT=1 lists every kind of failure instead of stopping at the first.
 *
 * The failures the fuzz found are fixed cases below, run before the generated ones.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkReply, RSS_GROWTH_LIMIT, rssBytes, runHttpFuzz, sendCase, startFuzzTarget, type FuzzTarget } from "./http-harness";
import type { FuzzCase } from "./requests";

const runs = Number(process.env.FUZZ_RUNS || 2000);
const seed = Number(process.env.FUZZ_SEED || 20261126);

const request = (c: Partial<FuzzCase> & Pick<FuzzCase, "target">): FuzzCase => ({
  method: "GET",
  headers: [],
  body: Buffer.alloc(0),
  framing: "content-length",
  note: "regression",
  ...c,
});

const form = (boundary: string, terminated: boolean): Buffer =>
  Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nabc\r\n${terminated ? `--${boundary}--\r\n` : ""}`,
  );

describe("generated hostile requests against the real server", () => {
  let target: FuzzTarget;
  beforeAll(async () => {
    target = await startFuzzTarget();
  }, 180_000);
  afterAll(async () => {
    if (target) await target.server.stop();
  });

  /** Sends a case, applies the fuzz's own rules, and returns the reply with its error type. */
  const send = async (c: FuzzCase) => {
    const res = await sendCase(target, c);
    checkReply(c, res);
    const type =
      res.status >= 400 && /json/.test(res.headers["content-type"] ?? "")
        ? (JSON.parse(res.body.toString()) as { error: { type: string } }).error.type
        : null;
    return { ...res, type };
  };

  describe("failures the fuzz found (seed 20261126 and 777)", () => {
    it("a head over Node's header limit: 431 invalid_request JSON with request-id (was a bare 431)", async () => {
      const res = await send(request({ target: "/api/posts", headers: [["x-big", "b".repeat(40_000)]] }));
      expect(res.status).toBe(431);
      expect(res.type).toBe("invalid_request");
      expect(res.headers["request-id"]).toMatch(/^[0-9a-f]{32}$/);
    });

    it("Content-Length with Transfer-Encoding, two Content-Lengths, a bad chunk: 400 invalid_request JSON", async () => {
      for (const framing of ["conflicting", "double-length", "bad-chunk"] as const) {
        const res = await send(
          request({
            method: "POST",
            target: "/relay/auth/login",
            body: Buffer.from("{}"),
            headers: [["content-type", "application/json"]],
            framing,
          }),
        );
        expect(res.status, framing).toBe(400);
        expect(res.type, framing).toBe("invalid_request");
      }
    });

    it("a header value with invalid UTF-8 and control bytes is still answered by us", async () => {
      const res = await send(request({ target: "/api/gifs", headers: [["x-nul", Buffer.from([0x61, 0x00, 0x62])]] }));
      expect(res.status).toBe(400);
      expect(res.type).toBe("invalid_request");
    });

    it("an Expect other than 100-continue is served as if absent (was Node's bare 417)", async () => {
      const res = await send(request({ target: "/api/no-such-endpoint", headers: [["expect", "nothing"]] }));
      expect(res.status).toBe(404);
      expect(res.type).toBe("not_found");
      const page = await send(request({ target: "/cdn/x/y", headers: [["expect", "-1"]] }));
      expect(page.type).toBe("not_found");
    });

    it("a page path that is not percent-encoded UTF-8: 400 invalid_request (was Next's 500)", async () => {
      for (const path of ["/p/%E9", "/p/G%E9W", "/p/%zz", "/p/%C0%AE"]) {
        const res = await send(request({ target: path, method: path === "/p/%zz" ? "PATCH" : "GET" }));
        expect(res.status, path).toBe(400);
        expect(res.type, path).toBe("invalid_request");
      }
    });

    it("a method outside the usual set on a page or Next route: 405 method_not_allowed with Allow (TRACE was Next's 500; seed 99)", async () => {
      for (const [method, path] of [
        ["TRACE", "/pdNwVj3hAn"],
        ["TRACE", "/healthz"],
        ["TRACE", "/dashboard"],
        ["PROPFIND", "/"],
      ] as const) {
        const res = await send(request({ method, target: path, body: Buffer.from("{}"), headers: [["content-type", "text/plain"]] }));
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.type, `${method} ${path}`).toBe("method_not_allowed");
        expect(res.headers.allow).toContain("GET");
      }
    });

    it("a multipart POST to a page that Fetch's form parser refuses: 400 invalid_request (was Next's 500)", async () => {
      // Unquoted boundary with a comma; no closing boundary.
      for (const [boundary, terminated] of [
        ["',')+8V", true],
        ["B", false],
      ] as const) {
        const res = await send(
          request({
            method: "POST",
            target: "/p",
            body: form(boundary, terminated),
            headers: [["content-type", `multipart/form-data; boundary=${boundary}`]],
          }),
        );
        expect(res.status, boundary).toBe(400);
        expect(res.type, boundary).toBe("invalid_request");
      }
      const big = await send(
        request({
          method: "POST",
          target: "/p/abc",
          body: Buffer.alloc(1024 * 1024 + 10, 0x61),
          headers: [["content-type", "multipart/form-data; boundary=B"]],
        }),
      );
      expect(big.status).toBe(413);
      expect(big.type).toBe("file_too_large");
    });

    it("a well-formed form post still reaches Next, body intact", async () => {
      // Next reads the replayed body and finds no action in it: its own 400, not ours.
      const res = await send(
        request({
          method: "POST",
          target: "/p/abc",
          body: form("B", true),
          headers: [["content-type", "multipart/form-data; boundary=B"]],
        }),
      );
      expect(res.status).toBeLessThan(500);
      expect(res.body.toString()).not.toContain("could not be parsed as multipart");
    });
  });

  it(
    `${runs} generated cases: no 5xx, documented errors, server up, RSS bounded`,
    async () => {
      const collect = process.env.FUZZ_COLLECT === "1";
      const result = await runHttpFuzz(target, { numRuns: runs, seed, collect });
      if (collect) console.log(`http fuzz failures:\n${result.failures.join("\n\n")}`);
      expect(result.failures).toEqual([]);
      console.log(
        `http fuzz: ${JSON.stringify({ ...result, failures: result.failures.length, rssStartMB: Math.round(result.rssStart / 2 ** 20), rssPeakMB: Math.round(result.rssPeak / 2 ** 20) })}`,
      );
      expect(result.cases).toBe(runs);
      expect(result.rssPeak - result.rssStart).toBeLessThan(RSS_GROWTH_LIMIT);
      const health = await fetch(`${target.server.url}/api/openapi.json`);
      expect(health.status).toBe(200);
      expect(rssBytes(target.server.pid)).toBeGreaterThan(0);
    },
    Math.max(120_000, runs * 60),
  );
});
