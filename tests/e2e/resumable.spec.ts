/**
 * The dashboard's resumable uploads in a real Chromium (docs/resumable-uploads.md): a file
 * over 50 MB goes over tus; paused in the middle of a PATCH it keeps what arrived and
 * resumes from there; cut by a page reload, choosing the same file again resumes it. The
 * browser's upload is throttled (DevTools network conditions) so there is a "middle".
 */
import { expect, test, type Page } from "@playwright/test";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fixture } from "../support/media";
import { admin, signIn, uniqueName } from "./support";

const MB = 1024 * 1024;
/** components/dashboard/resumable-upload.ts's chunk size. */
const CHUNK = 50 * MB;

/** A real MP4 grown past the tus threshold by a top-level `free` box (players and ffmpeg skip it). */
async function bigVideo(dir: string, name: string): Promise<string> {
  const video = await readFile(await fixture("mp4"));
  const padding = 52 * MB;
  const box = Buffer.alloc(padding);
  box.writeUInt32BE(padding, 0);
  box.write("free", 4, "latin1");
  const path = join(dir, name);
  await writeFile(path, Buffer.concat([video, box]));
  return path;
}

/** Upload-Offset of every PATCH the page sends to /api/tus, and its creations (POST /api/tus). */
function watchTus(page: Page): { offsets: number[]; creations: number[] } {
  const seen = { offsets: [] as number[], creations: [] as number[] };
  page.on("request", (request) => {
    if (request.method() === "PATCH" && request.url().includes("/api/tus/")) seen.offsets.push(Number(request.headers()["upload-offset"]));
    if (request.method() === "POST" && request.url().endsWith("/api/tus")) seen.creations.push(Date.now());
  });
  return seen;
}

/** An offset inside the first chunk: only a PATCH cut short can have left the upload there. */
const insideFirstChunk = (offsets: number[]) => offsets.some((o) => o > 0 && o < CHUNK);

async function throttleUploads(page: Page, bytesPerSecond: number): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: bytesPerSecond,
  });
}

test("a large file uploads over tus with pause and resume, and resumes after a page reload", async ({ page }) => {
  test.setTimeout(300_000);
  const dir = await mkdtemp(join(tmpdir(), "mediahost-tus-e2e-"));
  try {
    const username = uniqueName("tus");
    await admin("user", "create", "--username", username, "--password", "tus e2e password", "--plan", "plus");
    await signIn(page, username, "tus e2e password");
    await page.goto("/dashboard");
    await throttleUploads(page, 8 * MB);
    const seen = watchTus(page);

    // Pause in the middle of the first PATCH, then resume.
    const paused = await bigVideo(dir, "paused.mp4");
    await page.getByLabel("Files to upload").setInputFiles(paused);
    // The upload queue's entry (gallery tiles show the file name too, as the title's fallback).
    const item = page.locator("li[data-upload-state]", { hasText: "paused.mp4" });
    await expect(item.getByRole("button", { name: "Pause upload of paused.mp4" })).toBeVisible({ timeout: 30_000 });
    await expect
      .poll(async () => Number(await item.getByRole("progressbar").getAttribute("value")), { timeout: 30_000 })
      .toBeGreaterThan(5);
    await item.getByRole("button", { name: "Pause upload of paused.mp4" }).click();
    await expect(item).toHaveAttribute("data-upload-state", "paused");
    await item.getByRole("button", { name: "Resume upload of paused.mp4" }).click();
    await expect(item).toHaveAttribute("data-upload-state", "done", { timeout: 120_000 });
    await expect(item.getByRole("link", { name: "Open share page" })).toBeVisible();
    // One upload, created once; resumed where the paused PATCH stopped (what arrived was kept).
    expect(seen.creations).toHaveLength(1);
    expect(seen.offsets[0]).toBe(0);
    expect(insideFirstChunk(seen.offsets)).toBe(true);

    // Cut by a reload: choosing the same file again resumes it, with no new creation.
    seen.offsets.length = 0;
    seen.creations.length = 0;
    const reloaded = await bigVideo(dir, "reloaded.mp4");
    await page.getByLabel("Files to upload").setInputFiles(reloaded);
    const first = page.locator("li[data-upload-state]", { hasText: "reloaded.mp4" });
    await expect
      .poll(async () => Number(await first.getByRole("progressbar").getAttribute("value")), { timeout: 30_000 })
      .toBeGreaterThan(5);
    await page.reload();
    await throttleUploads(page, 8 * MB);
    expect(seen.creations).toHaveLength(1);
    seen.offsets.length = 0;
    seen.creations.length = 0;
    await page.getByLabel("Files to upload").setInputFiles(reloaded);
    const again = page.locator("li[data-upload-state]", { hasText: "reloaded.mp4" });
    await expect(again).toHaveAttribute("data-upload-state", "done", { timeout: 120_000 });
    expect(seen.creations).toHaveLength(0);
    expect(insideFirstChunk(seen.offsets)).toBe(true);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
