/** The saved theme decides the pages' colour scheme; anything unknown follows the system. */
import { describe, expect, it } from "vitest";
import { themeMode } from "@/lib/web/theme";

describe("themeMode", () => {
  it("reads the dashboard's {mode} theme", () => {
    expect(themeMode('{"mode":"dark"}')).toBe("dark");
    expect(themeMode('{"mode":"light","accent":"#f00"}')).toBe("light");
    expect(themeMode('{"mode":"system"}')).toBe("system");
  });
  it("follows the system for no theme, other shapes and broken JSON", () => {
    for (const text of [null, undefined, "", "null", '"dark"', '{"mode":"purple"}', "{not json", "[1]"]) {
      expect(themeMode(text)).toBe("system");
    }
  });
});
