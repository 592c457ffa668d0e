import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { chatterinoConfig, flameshotScript, sharexConfig, SHAREX_VERSION } from "@/lib/apps/client-config";
import { resetEnv } from "@/lib/config/env";
import { domainError } from "./helpers";

const KEY = "mha_abc-DEF_123";
const urls = { apiUrl: "https://media.example/api", publicUrl: "https://media.example" };

describe("ShareX config", () => {
  it("is a ShareX 14+ custom uploader for POST /upload", () => {
    expect(sharexConfig(KEY, { urls, appName: "Desktop", uploadFiles: "media" })).toEqual({
      Version: SHAREX_VERSION,
      Name: "media.example (Desktop)",
      DestinationType: "ImageUploader, FileUploader",
      RequestMethod: "POST",
      RequestURL: "https://media.example/api/upload",
      Headers: { "api-key": KEY, "post-privacy": "unlisted" },
      Body: "MultipartFormData",
      FileFormName: "file",
      URL: "{json:post.url}",
      ThumbnailURL: "{json:url}",
      DeletionURL: "https://media.example/dashboard/delete/{json:post.code}",
      ErrorMessage: "{json:error.type}: {json:error.message}",
    });
    expect(Number(SHAREX_VERSION.split(".")[0])).toBeGreaterThanOrEqual(14);
  });

  /**
   * ShareX reads DestinationType with Json.NET's StringEnumConverter into its flags enum
   * EDestinationType: names separated by ", ", each one of the enum's, case-insensitive.
   */
  function sharexDestinationFlags(json: string): Set<string> {
    const FLAGS = ["None", "ImageUploader", "TextUploader", "FileUploader", "URLShortener", "URLSharingService"];
    const parsed = JSON.parse(json) as { DestinationType: string };
    const names = parsed.DestinationType.split(",").map((n) => n.trim());
    for (const name of names) expect(FLAGS.map((f) => f.toLowerCase())).toContain(name.toLowerCase());
    return new Set(names);
  }

  // ShareX sends screen recordings (.mp4, .webm) to the File uploader, and videos are always
  // accepted: every setting registers it (issue 38 §3), or a ShareX user's clips never arrive.
  it.each([
    ["media", ["ImageUploader", "FileUploader"]],
    ["media,text", ["ImageUploader", "TextUploader", "FileUploader"]],
    ["all", ["ImageUploader", "TextUploader", "FileUploader"]],
  ] as const)("UPLOAD_FILES=%s: the .sxcu lists exactly the destinations its request serves", (uploadFiles, want) => {
    const sxcu = JSON.stringify(sharexConfig(KEY, { urls, uploadFiles }));
    expect(sharexDestinationFlags(sxcu)).toEqual(new Set(want));
  });

  it("follows the running UPLOAD_FILES by default", () => {
    const saved = process.env.UPLOAD_FILES;
    try {
      process.env.UPLOAD_FILES = "media,text";
      resetEnv();
      expect(sharexConfig(KEY, { urls }).DestinationType).toBe("ImageUploader, TextUploader, FileUploader");
    } finally {
      if (saved === undefined) delete process.env.UPLOAD_FILES;
      else process.env.UPLOAD_FILES = saved;
      resetEnv();
    }
  });

  it("defaults to the configured URLs (PUBLIC_URL, API_URL)", () => {
    const saved = { PUBLIC_URL: process.env.PUBLIC_URL, API_URL: process.env.API_URL };
    try {
      process.env.PUBLIC_URL = "https://pics.example.org/";
      delete process.env.API_URL;
      resetEnv();
      const config = sharexConfig(KEY);
      expect(config.RequestURL).toBe("https://pics.example.org/api/upload");
      expect(config.DeletionURL).toBe("https://pics.example.org/dashboard/delete/{json:post.code}");
      expect(config.Name).toBe("pics.example.org");
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      resetEnv();
    }
  });

  it("refuses keys with characters that would be template syntax or shell code", async () => {
    for (const bad of ["abc{def}", "a b", "a;b", "a'b", "$(reboot)", ""]) {
      const error = await domainError(Promise.resolve().then(() => sharexConfig(bad, { urls })));
      expect(error.type).toBe("invalid_request");
      expect(() => flameshotScript(bad, { urls })).toThrow();
    }
  });
});

describe("Chatterino config", () => {
  it("uses Chatterino's header list and dot-path patterns", () => {
    expect(chatterinoConfig(KEY, { urls })).toEqual({
      request_url: "https://media.example/api/upload",
      form_field: "file",
      extra_headers: `api-key: ${KEY};post-privacy: unlisted`,
      image_link: "{post.url}",
      deletion_link: "https://media.example/dashboard/delete/{post.code}",
    });
  });
});

describe("Flameshot script", () => {
  const dir = mkdtempSync(join(tmpdir(), "flameshot-test-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const response = JSON.stringify({
    url: "https://media.example/cdn/direct.png",
    post: { code: "abc123", url: "https://media.example/p/abc123", title: null, files: [{ name: "a.png", url: "https://x/a.png" }] },
  });

  /** Fake flameshot, curl and xclip that record what the script did. */
  function stubs(capture: string): string {
    const bin = mkdtempSync(join(dir, "bin-"));
    const write = (name: string, body: string) => {
      writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
      chmodSync(join(bin, name), 0o755);
    };
    write("flameshot", `printf '%s' '${capture}'`);
    write("curl", `printf '%s\\n' "$@" > "$LOG/curl-args"; printf '%s' "$RESPONSE"`);
    write("xclip", `cat > "$LOG/clipboard"`);
    return bin;
  }

  /** A PATH of only the basic tools the script needs, so jq is absent (the sed fallback). */
  function basicTools(): string {
    const tools = mkdtempSync(join(dir, "tools-"));
    for (const tool of ["mktemp", "rm", "sed", "cat"]) {
      const found = execFileSync("/bin/sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).trim();
      symlinkSync(found, join(tools, tool));
    }
    return tools;
  }

  function run(path: string, capture = "PNGBYTES") {
    const log = mkdtempSync(join(dir, "log-"));
    const scriptPath = join(log, "upload.sh");
    writeFileSync(scriptPath, flameshotScript(KEY, { urls }).script);
    const result = spawnSync("/bin/sh", [scriptPath], {
      encoding: "utf8",
      env: { NODE_ENV: "test", PATH: `${stubs(capture)}:${path}`, LOG: log, RESPONSE: response, TMPDIR: log },
    });
    const read = (name: string) => (existsSync(join(log, name)) ? readFileSync(join(log, name), "utf8") : null);
    return { ...result, curlArgs: read("curl-args"), clipboard: read("clipboard") };
  }

  it("is a POSIX sh script that captures with flameshot gui -r and uploads with curl", () => {
    const { script } = flameshotScript(KEY, { urls });
    expect(script.startsWith("#!/bin/sh\n")).toBe(true);
    expect(script).toContain("flameshot gui -r");
    expect(script).toContain(`API_KEY='${KEY}'`);
    expect(script).toContain("UPLOAD_URL='https://media.example/api/upload'");
    const syntax = spawnSync("/bin/sh", ["-n"], { input: script, encoding: "utf8" });
    expect(syntax.status, syntax.stderr).toBe(0);
  });

  it("uploads with the key, reads post.url with jq and copies it", () => {
    const hasJq = spawnSync("/bin/sh", ["-c", "command -v jq"]).status === 0;
    const result = run(hasJq ? "/usr/local/bin:/usr/bin:/bin" : basicTools());
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("https://media.example/p/abc123");
    expect(result.clipboard).toBe("https://media.example/p/abc123");
    expect(result.curlArgs).toContain(`api-key: ${KEY}`);
    expect(result.curlArgs).toContain("post-privacy: unlisted");
    expect(result.curlArgs).toContain("https://media.example/api/upload");
    expect(result.curlArgs).toMatch(/^file=@.+;filename=screenshot\.png/m);
    expect(result.curlArgs).toMatch(/^-f$/m);
  });

  it("falls back to sed when jq is missing", () => {
    const result = run(basicTools());
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("https://media.example/p/abc123");
    expect(result.clipboard).toBe("https://media.example/p/abc123");
  });

  it("does nothing when the capture is cancelled", () => {
    const result = run(basicTools(), "");
    expect(result.status).toBe(0);
    expect(result.curlArgs).toBeNull();
    expect(result.clipboard).toBeNull();
  });

  it("fails when flameshot is not installed", () => {
    const tools = basicTools();
    const log = mkdtempSync(join(dir, "log-"));
    const scriptPath = join(log, "upload.sh");
    writeFileSync(scriptPath, flameshotScript(KEY, { urls }).script);
    const result = spawnSync("/bin/sh", [scriptPath], { encoding: "utf8", env: { NODE_ENV: "test", PATH: tools } });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("flameshot is not installed");
  });
});
