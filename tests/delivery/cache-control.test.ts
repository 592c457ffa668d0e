/**
 * Who may cache a file, and for how long (lib/delivery/headers.ts; docs/operations.md,
 * "Caching public files"): public files a year in a browser but SHARED_CACHE_SECONDS in a
 * shared cache, read at call time (a stored change applies at once); anything else private.
 */
import { afterEach, describe, expect, it } from "vitest";
import { settingDeclaration } from "@/lib/config/settings-catalog";
import { resetEnv } from "@/lib/config/env";
import { cacheControl, publicCacheControl } from "@/lib/delivery/headers";

afterEach(() => {
  delete process.env.SHARED_CACHE_SECONDS;
  resetEnv();
});

describe("Cache-Control of files", () => {
  it("public files: s-maxage from SHARED_CACHE_SECONDS (default 60), a year for browsers", () => {
    expect(cacheControl(true, undefined, 1000)).toBe("public, max-age=31536000, s-maxage=60, immutable");
    process.env.SHARED_CACHE_SECONDS = "5";
    resetEnv();
    expect(cacheControl(true, undefined, 1000)).toBe("public, max-age=31536000, s-maxage=5, immutable");
    expect(publicCacheControl()).toBe("public, max-age=31536000, s-maxage=5, immutable");
    process.env.SHARED_CACHE_SECONDS = "0";
    resetEnv();
    expect(publicCacheControl()).toBe("public, max-age=31536000, s-maxage=0, immutable");
  });

  it("everything else is private: until the signature or the post expires (at most a day), else revalidated", () => {
    expect(cacheControl(false, undefined, 1000)).toBe("private, no-cache");
    expect(cacheControl(false, 1600, 1000)).toBe("private, max-age=600");
    expect(cacheControl(false, 1000 + 5 * 86_400, 1000)).toBe("private, max-age=86400");
    expect(cacheControl(false, 900, 1000)).toBe("private, max-age=0");
  });

  it("the setting takes whole seconds, 0 or more, in the console and the environment alike", () => {
    const declaration = settingDeclaration("SHARED_CACHE_SECONDS");
    expect(declaration?.runtime).toBe(true);
    expect(declaration?.check(" 120 ")).toBe("120");
    expect(() => declaration?.check("-1")).toThrow(/SHARED_CACHE_SECONDS/);
    expect(() => declaration?.check("a minute")).toThrow(/SHARED_CACHE_SECONDS/);
  });
});
