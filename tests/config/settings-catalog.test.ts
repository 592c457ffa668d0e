/**
 * The settings' one declaration (lib/config/settings-catalog.ts, issue 38 §2): every setting
 * is a variable the service reads, checked by that variable's own rule, and
 * docs/configuration.md's table is the one the declaration writes.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ENV_VARIABLES, parseEnv } from "@/lib/config/env";
import { SECTIONS, SETTINGS, settingDeclaration } from "@/lib/config/settings-catalog";
import { settingsDocTable } from "@/lib/config/settings-doc";
import { PLAN_SETTING_NAMES } from "@/lib/plans";
import { SUBSYSTEM_SETTINGS } from "@/lib/server/settings";

const readVariables = new Set([...ENV_VARIABLES, ...PLAN_SETTING_NAMES, ...SUBSYSTEM_SETTINGS.flatMap((s) => s.variables)]);

describe("the settings' declaration", () => {
  it("names each setting after a variable the service reads, once, in a known section", () => {
    const names = SETTINGS.map((d) => d.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.filter((name) => !readVariables.has(name))).toEqual([]);
    const sections = new Set(SECTIONS.map((s) => s.id));
    expect(SETTINGS.filter((d) => !sections.has(d.section))).toEqual([]);
    expect(settingDeclaration(" upload_files ")?.name).toBe("UPLOAD_FILES");
  });

  it("covers what the issue lists: file kinds, registration, privacy, limits, embeds, OCR, hosts, SMTP, moderation, retention", () => {
    for (const name of [
      "UPLOAD_FILES",
      "REGISTRATION",
      "DEFAULT_UPLOAD_PRIVACY",
      "PLAN_FREE_UPLOAD_FILE_MAX",
      "PLAN_FREE_WEEKLY_QUOTA",
      "SITE_NAME",
      "EMBED_COLOR",
      "OCR",
      "OCR_LANGUAGE",
      "SHORT_URL",
      "SHARE_URL",
      "SMTP_URL",
      "MODERATION_WORDS",
      "TUS_EXPIRY_SECONDS",
    ]) {
      expect(settingDeclaration(name)?.runtime, name).toBe(true);
    }
    expect(settingDeclaration("SMTP_URL")?.secret).toBe(true);
    for (const name of ["DATABASE_URL", "DATA_DIR", "PORT", "STORAGE"]) expect(settingDeclaration(name)?.runtime, name).toBe(false);
  });

  it("a value the console accepts is one the environment accepts, stored in the environment's canonical form", () => {
    for (const declaration of SETTINGS.filter((d) => d.runtime && d.input.kind === "select")) {
      if (declaration.input.kind !== "select") continue;
      for (const option of declaration.input.options) {
        const stored = declaration.check(option.value);
        expect(() => parseEnv({ [declaration.name]: stored })).not.toThrow();
      }
    }
    expect(settingDeclaration("UPLOAD_FILES")?.check("TEXT")).toBe("media,text");
    expect(settingDeclaration("EMBED_COLOR")?.check("#FF8800")).toBe("#ff8800");
    expect(parseEnv({ EMBED_COLOR: "#FF8800" }).EMBED_COLOR).toBe("#ff8800");
    expect(settingDeclaration("SHARE_URL")?.check("https://i.example.com/p/")).toBe("https://i.example.com/p");
    expect(() => settingDeclaration("SITE_NAME")?.check("x".repeat(65))).toThrow(/Invalid setting SITE_NAME/);
    expect(() => settingDeclaration("MAIL_FROM")?.check("not an address")).toThrow(/Invalid setting MAIL_FROM/);
    expect(settingDeclaration("MAIL_FROM")?.check("Media host <noreply@example.com>")).toBe("Media host <noreply@example.com>");
  });

  it("the environment's defaults are today's: privacy unlisted for web uploads, Mediahost, the brand colour, open sign-up", () => {
    expect(parseEnv({})).toMatchObject({
      DEFAULT_UPLOAD_PRIVACY: "unlisted",
      SITE_NAME: "Mediahost",
      EMBED_COLOR: "#3552e3",
      REGISTRATION: "open",
      UPLOAD_FILES: "media",
    });
    expect(() => parseEnv({ REGISTRATION: "sometimes" })).toThrow(/must be open, invite or closed/);
  });

  it("docs/configuration.md carries the table the declaration writes (npm run -s settings:doc)", () => {
    expect(readFileSync("docs/configuration.md", "utf8")).toContain(settingsDocTable());
  });
});
