/**
 * MediaHostError from replies the server tests cannot produce on demand: a body that is not
 * the service's error object (a proxy's HTML page), an HTTP-date Retry-After, and the
 * context fields of an error (docs/sdk.md, "Errors").
 */
import { describe, expect, it } from "vitest";
import { MediaHostError, parseRetryAfter } from "@/sdk/src/errors";

describe("MediaHostError.fromResponse", () => {
  it("a reply without the error object is unexpected_response, with its status and request-id", () => {
    const response = new Response("<html>Bad gateway</html>", { status: 502, headers: { "request-id": "abc" } });
    const error = MediaHostError.fromResponse(response, "<html>Bad gateway</html>");
    expect(error).toBeInstanceOf(Error);
    expect([error.type, error.status, error.requestId, error.retryAfter]).toEqual(["unexpected_response", 502, "abc", null]);
  });

  it("keeps the error's context fields apart from type and message", () => {
    const body = {
      error: { type: "quota_exceeded", message: "Weekly quota reached.", quota: 100, used: 99, resets_at: "2026-12-01T00:00:00.000Z" },
    };
    const error = MediaHostError.fromResponse(new Response(null, { status: 400, headers: { "retry-after": "7" } }), body);
    expect([error.type, error.status, error.message, error.retryAfter]).toEqual(["quota_exceeded", 400, "Weekly quota reached.", 7]);
    expect(error.details).toEqual({ quota: 100, used: 99, resets_at: "2026-12-01T00:00:00.000Z" });
  });
});

describe("parseRetryAfter", () => {
  it("reads delta-seconds and HTTP dates; anything else is null", () => {
    expect(parseRetryAfter("30")).toBe(30);
    expect(parseRetryAfter(" 0 ")).toBe(0);
    expect(parseRetryAfter(new Date(Date.now() + 120_000).toUTCString())).toBeGreaterThanOrEqual(118);
    expect(parseRetryAfter("Thu, 01 Jan 1970 00:00:00 GMT")).toBe(0);
    expect(parseRetryAfter("soon")).toBeNull();
    expect(parseRetryAfter(null)).toBeNull();
    expect(parseRetryAfter("")).toBeNull();
  });
});
