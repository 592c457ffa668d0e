/**
 * Priority (adaptive) delivery in a real Chromium: a video uploaded through the API with
 * priority on gets its HLS stream from the background job, the share page plays it through
 * hls.js, and once the post is private the playlists and segments open only with signatures.
 */
import { expect, test, type Page } from "@playwright/test";
import { fixture } from "../support/media";
import { admin, baseUrl, createUser, signIn, updatePost, upload, watchPolicy, type E2EUser } from "./support";

interface StreamFile {
  url: string;
  stream_url: string | null;
  stream_state: string | null;
}

let owner: E2EUser;
let code: string;

async function getFile(): Promise<StreamFile> {
  const response = await fetch(`${baseUrl()}/api/posts/${code}`, { headers: { "api-key": owner.apiKey } });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { post: { files: StreamFile[] } };
  return body.post.files[0]!;
}

/** Whether this Chromium can decode H.264 through Media Source Extensions (Debian's may not). */
async function h264Supported(page: Page): Promise<boolean> {
  return page.evaluate(() => typeof MediaSource !== "undefined" && MediaSource.isTypeSupported('video/mp4; codecs="avc1.42E01E"'));
}

/** The URIs a playlist lists (lines that are not tags), resolved against the playlist's URL. */
function listedUris(text: string, playlistUrl: string): URL[] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => new URL(line, playlistUrl));
}

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(120_000);
  owner = await createUser();
  await admin("user", "plan", "--user", owner.username, "--plan", "ultra");
  // The 2 s 320x240 H.264 + AAC fixture: one 240p rendition, one short segment, seconds of ffmpeg.
  const post = await upload(owner, await fixture("mp4"), "video/mp4", { priority: "true" });
  code = post.code;
  // The job runs in the background; the machine is shared, so the wait is generous.
  await expect
    .poll(async () => (await getFile()).stream_state, { timeout: 90_000, intervals: [500, 1000, 2000] })
    .toMatch(/^(ready|failed)$/);
  expect((await getFile()).stream_state).toBe("ready");
});

test("the share page plays the adaptive stream through hls.js", async ({ page }) => {
  // hls.js (a worker from a blob: URL, MSE blob: media) under the page's policy.
  const problems = await watchPolicy(page);
  const requests: string[] = [];
  page.on("request", (request) => requests.push(request.url()));
  await page.goto(`/p/${code}`);
  const video = page.locator("video").first();
  await expect(video).toBeVisible();
  const requested = (pattern: RegExp): boolean => requests.some((url) => pattern.test(new URL(url).pathname));

  // hls.js fetches the master playlist, a rendition playlist and a segment in every case.
  await expect.poll(() => requested(/\/master\.m3u8$/)).toBe(true);
  await expect.poll(() => requested(/\/[^/]+\.ts$/)).toBe(true);

  if (await h264Supported(page)) {
    await expect(video).toHaveAttribute("data-delivery", "adaptive");
    // Muted playback is allowed without a user gesture.
    await video.evaluate((el: HTMLVideoElement) => {
      el.muted = true;
      void el.play();
    });
    await expect.poll(() => video.evaluate((el: HTMLVideoElement) => el.currentTime), { timeout: 20_000 }).toBeGreaterThan(0.3);
    // The element plays the stream through hls.js (MSE, a blob: URL), never the MP4. Chromium
    // also claims native HLS, but AdaptiveVideo sends only Apple's engine there.
    const source = await video.evaluate((el: HTMLVideoElement) => el.currentSrc);
    expect(source).toMatch(/^blob:/);
  } else {
    // No H.264 decoder: hls.js hits a fatal media error and the player falls back to the MP4,
    // which must then play (or at least load) rather than leave a broken element.
    await expect(video).toHaveAttribute("data-delivery", "standard", { timeout: 20_000 });
    await expect.poll(() => video.evaluate((el: HTMLVideoElement) => el.currentSrc)).toMatch(/\.mp4(\?|$)/);
  }
  expect(problems).toEqual([]);
});

test("a private post's stream opens only with signed URLs", async () => {
  await updatePost(owner, code, { privacy: "private" });
  const file = await getFile();
  expect(file.stream_state).toBe("ready");
  const signed = new URL(file.stream_url!);
  expect(signed.searchParams.get("sig")).toBeTruthy();

  // Unsigned (and tampered) playlist URLs are refused.
  const unsigned = `${signed.origin}${signed.pathname}`;
  expect([403, 404]).toContain((await fetch(unsigned)).status);
  const tampered = new URL(signed);
  // One character changed (never to itself: 1 signature in 64 starts with an "x").
  const sig = signed.searchParams.get("sig")!;
  tampered.searchParams.set("sig", `${sig[0] === "x" ? "y" : "x"}${sig.slice(1)}`);
  expect([403, 404]).toContain((await fetch(tampered)).status);

  // The signed master playlist works and signs every URI it lists; so do the renditions.
  const master = await fetch(signed);
  expect(master.status).toBe(200);
  const renditions = listedUris(await master.text(), signed.href);
  expect(renditions.length).toBeGreaterThan(0);
  let segments = 0;
  for (const rendition of renditions) {
    expect(rendition.searchParams.get("sig")).toBeTruthy();
    expect([403, 404]).toContain((await fetch(`${rendition.origin}${rendition.pathname}`)).status);
    const playlist = await fetch(rendition);
    expect(playlist.status).toBe(200);
    for (const segment of listedUris(await playlist.text(), rendition.href)) {
      expect(segment.searchParams.get("sig")).toBeTruthy();
      const response = await fetch(segment);
      expect(response.status).toBe(200);
      expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(0);
      expect([403, 404]).toContain((await fetch(`${segment.origin}${segment.pathname}`)).status);
      segments++;
    }
  }
  expect(segments).toBeGreaterThan(0);
});

test("the dashboard editor plays the (now private, signed) stream through hls.js", async ({ page }) => {
  await signIn(page, owner.username, owner.password);
  await page.goto("/dashboard");
  const item = page.getByRole("list", { name: "Posts" }).locator(`li[data-code="${code}"]`);
  await item.getByRole("button", { name: /^Edit / }).click();
  const video = page.getByRole("dialog").locator("video").first();
  await expect(video).toHaveAttribute("data-delivery", "adaptive");
  await video.evaluate((el: HTMLVideoElement) => {
    el.muted = true;
    void el.play();
  });
  await expect.poll(() => video.evaluate((el: HTMLVideoElement) => el.currentTime), { timeout: 20_000 }).toBeGreaterThan(0.3);
  expect(await video.evaluate((el: HTMLVideoElement) => el.currentSrc)).toMatch(/^blob:/);
});
