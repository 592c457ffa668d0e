/**
 * Text and file share pages (docs/pastes.md, docs/file-kinds.md) in a real browser, on a
 * server of its own with UPLOAD_FILES=all, at 390 and 1280 px: highlighted text readable
 * without script, line numbers, the CSS wrap toggle, raw link; a file's download card with
 * its audio player; the file name as the title when a post has none.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import ogs from "open-graph-scraper";
import { adminOn, createAndSignIn, startLocalhostServer, type LocalhostServer } from "./own-server";
import { screenshots, uniqueName, watchPolicy } from "./support";
import sharp from "sharp";
import { ffmpeg, fixture } from "../support/media";

let own: LocalhostServer;
let apiKey: string;
let dir: string;
let textUrl: string;
let fileUrl: string;
let rawUrl: string;

const CODE = `#!/usr/bin/env python3\n# A very long comment line that goes on and on so that wrapping it is visible at 390 px and also at 1280 px wide, really long.\ndef greet(name):\n    return f"<b>{name}</b>"\n`;

async function uploadFile(path: string, name: string, key = apiKey): Promise<{ url: string; files: { url: string }[] }> {
  const form = new FormData();
  form.append("file", new Blob([await readFile(path)]), name);
  const response = await fetch(`${own.url}/api/upload`, {
    method: "POST",
    headers: { "api-key": key, "post-privacy": "unlisted" },
    body: form,
  });
  const body = (await response.json()) as { post?: { url: string; files: { url: string }[] } };
  if (response.status !== 200 || !body.post) throw new Error(`upload failed: ${response.status} ${JSON.stringify(body)}`);
  return body.post;
}

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(300_000);
  own = await startLocalhostServer({ UPLOAD_FILES: "all" });
  const username = uniqueName("kinds");
  await adminOn(own, "user", "create", "--username", username, "--password", "correct horse battery");
  apiKey = String((await adminOn(own, "app", "create", "--user", username, "--name", "Kinds", "--gallery-access")).key);
  dir = await mkdtemp(join(tmpdir(), "e2e-kinds-"));
  await writeFile(join(dir, "greet.py"), CODE);
  await ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440", "-t", "1", "-c:a", "libmp3lame", "-f", "mp3", join(dir, "tone.mp3")]);
  const text = await uploadFile(join(dir, "greet.py"), "greet.py");
  textUrl = text.url;
  rawUrl = text.files[0]!.url;
  fileUrl = (await uploadFile(join(dir, "tone.mp3"), "tone.mp3")).url;
});

test.afterAll(async () => {
  await own?.server.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function noHorizontalScroll(page: Page): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(1);
}

for (const width of [390, 1280]) {
  test(`text share page at ${width} px: highlighted, line numbers, wrap toggle, raw link, readable without script`, async ({ browser }) => {
    const context = await browser.newContext({ viewport: { width, height: 900 }, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(textUrl);
    // No title: the file name is shown (the API's title stays null).
    await expect(page.getByRole("heading", { name: "greet.py" })).toBeVisible();
    await expect(page).toHaveTitle(/^greet\.py · /);
    const code = page.locator(".text-view-code");
    await expect(code).toContainText('return f"<b>{name}</b>"');
    await expect(code.locator(".line")).toHaveCount(4);
    // Coloured: tokens carry Shiki's variables.
    expect(await code.locator("span[style*='--shiki-light']").count()).toBeGreaterThan(3);
    // Line numbers come from a CSS counter (so copying the text skips them).
    const number = await code
      .locator(".line")
      .nth(2)
      .evaluate((el) => getComputedStyle(el, "::before").content);
    expect(number).toBe("counter(line)");
    const pre = code.locator("pre");
    expect(await pre.evaluate((el) => getComputedStyle(el).whiteSpace)).toBe("pre");
    await page.locator("label", { hasText: "Wrap" }).click();
    expect(await pre.evaluate((el) => getComputedStyle(el).whiteSpace)).toBe("pre-wrap");
    await noHorizontalScroll(page);
    await expect(page.getByRole("link", { name: "Raw" })).toHaveAttribute("href", rawUrl);
    await page.screenshot({ path: `test-results/screenshots/text-post-${width}.png`, fullPage: true });
    await context.close();
  });

  test(`file share page at ${width} px: name, size, type, download and an audio player`, async ({ browser }) => {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await context.newPage();
    const problems = await watchPolicy(page);
    await page.goto(fileUrl);
    const card = page.locator("[data-kind=file]");
    await expect(card).toContainText("tone.mp3");
    await expect(card).toContainText("audio/mpeg");
    await expect(card.getByRole("link", { name: "Download" })).toHaveAttribute("download", "tone.mp3");
    const duration = await card.locator("audio").evaluate(
      (audio: HTMLAudioElement) =>
        new Promise<number>((resolve) => {
          if (audio.readyState >= 1) resolve(audio.duration);
          else audio.addEventListener("loadedmetadata", () => resolve(audio.duration), { once: true });
        }),
    );
    expect(duration).toBeGreaterThan(0.5);
    await noHorizontalScroll(page);
    expect(problems).toEqual([]);
    await page.screenshot({ path: `test-results/screenshots/file-post-${width}.png`, fullPage: true });
    await context.close();
  });
}

test("the raw link is UTF-8 plain text with nosniff; the file is an attachment; the text unfurls with its first lines", async () => {
  const raw = await fetch(rawUrl);
  expect(raw.headers.get("content-type")).toBe("text/plain; charset=utf-8");
  expect(raw.headers.get("x-content-type-options")).toBe("nosniff");
  expect(await raw.text()).toBe(CODE);
  const page = await fetch(fileUrl);
  const html = await page.text();
  const audioSrc = /<audio[^>]*src="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, "&");
  expect(audioSrc).toBeTruthy();
  const audio = await fetch(audioSrc!);
  expect(audio.headers.get("content-disposition")).toMatch(/^attachment; filename="tone\.mp3"/);
  const unfurl = await fetch(textUrl, { headers: { "user-agent": "Mozilla/5.0 (compatible; Discordbot/2.0)" } });
  const { result } = await ogs({ html: await unfurl.text() });
  expect(result.ogTitle).toBe("greet.py");
  expect(result.ogDescription).toContain("#!/usr/bin/env python3");
});

test("the dashboard's paste editor makes a text post with its language, title and privacy", async ({ page }) => {
  test.setTimeout(180_000);
  await createAndSignIn(page, own);
  await page.goto(`${own.url}/dashboard`);
  await page.getByText("New paste").click();
  const form = page.getByRole("form", { name: "New paste" });
  await form.getByLabel("Text").fill('fn main() {\n    println!("hi");\n}\n');
  await form.getByLabel("Language").selectOption("rust");
  await form.getByLabel("Title").fill("Hello in Rust");
  await form.getByLabel("Paste privacy").selectOption("unlisted");
  await form.getByRole("button", { name: "Create paste" }).click();
  const created = form.getByRole("status").getByRole("link");
  await expect(created).toBeVisible({ timeout: 30_000 });
  await page.goto(String(await created.getAttribute("href")));
  await expect(page.getByRole("heading", { name: "Hello in Rust" })).toBeVisible();
  await expect(page.locator(".text-view")).toContainText("rust");
  await expect(page.locator(".text-view-code")).toContainText('println!("hi");');
});

test("gallery tiles show every kind: a paste's first lines, a file's extension and size, a video's duration, a wide screenshot whole (issue 38)", async ({
  page,
}) => {
  test.setTimeout(180_000);
  const username = await createAndSignIn(page, own);
  const key = String((await adminOn(own, "app", "create", "--user", username, "--name", "Tiles")).key);
  const wide = join(dir, "wide.png");
  await sharp({ create: { width: 1600, height: 400, channels: 3, background: { r: 20, g: 120, b: 200 } } })
    .png()
    .toFile(wide);
  await uploadFile(join(dir, "greet.py"), "greet.py", key);
  await uploadFile(join(dir, "tone.mp3"), "tone.mp3", key);
  await uploadFile(await fixture("mp4"), "clip.mp4", key);
  await uploadFile(wide, "wide.png", key);
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`${own.url}/dashboard`);
    await expect(page.locator('[data-tile-kind="text"]')).toContainText("#!/usr/bin/env python3");
    const file = page.locator('[data-tile-kind="file"]');
    await expect(file).toContainText("MP3");
    await expect(file).toContainText(/\d+(\.\d+)? (B|KB)/);
    await expect(page.locator('[data-tile-kind="video"]')).toContainText("0:02");
    await expect(page.locator('img[data-fit="contain"]')).toHaveCount(1);
    await noHorizontalScroll(page);
  }
  await screenshots(page, "gallery-kinds");
  // The kind filter lists what this instance accepts (UPLOAD_FILES=all: text and other files too).
  const kinds = page.getByLabel("Filter by kind");
  await expect(kinds.locator("option")).toContainText(["All kinds", "Images", "Videos", "GIFs", "Albums", "Text", "Other files"]);
  await kinds.selectOption("texts");
  await expect(page.locator("[data-code]")).toHaveCount(1);
  await expect(page.getByPlaceholder("Search titles, descriptions and text in images")).toBeVisible();
});
