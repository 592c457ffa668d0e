/** Request ids (docs/http-core.md): 32 random hex characters, never the same twice. */
import { describe, expect, it } from "vitest";
import { newRequestId } from "@/lib/http/request-id";

describe("newRequestId", () => {
  it("gives 32 lower-case hex characters, unique across many refills of its random pool", () => {
    // The pool holds 256 ids' worth of bytes: 10 000 ids refill it about 40 times.
    const ids = Array.from({ length: 10_000 }, newRequestId);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
