/**
 * `?error=` on the dashboard's delete page and on /dashboard/shared: only known types get
 * words, anything a caller wrote gets the generic line (lib/web/error-words.ts).
 */
import { describe, expect, it } from "vitest";
import { errorWords } from "@/lib/web/error-words";

describe("errorWords", () => {
  it("puts known error types in fixed words", () => {
    expect(errorWords(undefined)).toBeNull();
    expect(errorWords("")).toBeNull();
    expect(errorWords("quota_exceeded")).toBe("That would go over your weekly upload quota.");
    expect(errorWords("nothing_shared")).toBe("Nothing was shared.");
  });

  it("never shows text from the address", () => {
    const injected = "Your account is locked. Call +1 555 0100 to unlock it.";
    expect(errorWords(injected)).toBe("That did not work; please try again.");
    expect(errorWords("constructor")).toBe("That did not work; please try again.");
    expect(errorWords("internal")).toBe("That did not work; please try again.");
  });
});
