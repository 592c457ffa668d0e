/**
 * The grids load sized renditions, never originals (docs/renditions.md): the dashboard
 * gallery, discover, the GIF search and profiles give their tiles a `srcset` of the 320 and
 * 640 px WebP renditions, and every /cdn request those pages make is for a rendition. The
 * share page's image has a `srcset` of 320, 640, 960 and 1280 (and the original past that):
 * a phone loads a rendition (a 1.75x one the 960, not the 1280), the link and og:image stay
 * the original.
 */
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Locator, type Page } from "@playwright/test";
import sharp from "sharp";
import { createUser, signIn, uniqueName, updatePost, upload, type E2EUser, type UploadedPost } from "./support";

let owner: E2EUser;
let photo: UploadedPost;
let gif: UploadedPost;
const gifWord = uniqueName("rendloop");

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  owner = await createUser();
  const photoPath = join(tmpdir(), `e2e-renditions-${process.pid}.png`);
  await writeFile(
    photoPath,
    await sharp({ create: { width: 1600, height: 1200, channels: 3, background: "#37a" } })
      .png()
      .toBuffer(),
  );
  photo = await upload(owner, photoPath, "image/png");
  await updatePost(owner, photo.code, { title: "Blue photo" });
  const gifPath = join(tmpdir(), `e2e-renditions-${process.pid}.gif`);
  await writeFile(
    gifPath,
    await sharp({ create: { width: 900, height: 600, channels: 3, background: "#a73" } })
      .gif()
      .toBuffer(),
  );
  gif = await upload(owner, gifPath, "image/gif");
  await updatePost(owner, gif.code, { title: gifWord });
});

/** Every /cdn request for a post's file (avatars and banners under /cdn/u/ aside). */
function watchFiles(page: Page): string[] {
  const seen: string[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith("/cdn/") && !url.pathname.startsWith("/cdn/u/")) seen.push(url.pathname);
  });
  return seen;
}

/** The tile shows a rendition: srcset names both widths, and the loaded image is one of them. */
async function expectRenditionTile(img: Locator, code: string, name: string): Promise<void> {
  await img.scrollIntoViewIfNeeded();
  const srcset = await img.getAttribute("srcset");
  // Signed for private posts: `...webp?exp=...&sig=... 320w`.
  const entry = (width: number) =>
    new RegExp(`/cdn/${code}/r/${width}/${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\.webp(\\?\\S*)? ${width}w`);
  expect(srcset).toMatch(entry(320));
  expect(srcset).toMatch(entry(640));
  expect(await img.getAttribute("sizes")).toBeTruthy();
  await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBeGreaterThan(0);
  const current = await img.evaluate((el: HTMLImageElement) => el.currentSrc);
  expect(current).toMatch(new RegExp(`/cdn/${code}/r/(320|640)/`));
}

function expectOnlyRenditions(requested: string[]): void {
  expect(requested.length).toBeGreaterThan(0);
  for (const path of requested) expect(path, "a grid loaded an original").toMatch(/^\/cdn\/[^/]+\/r\/(320|640)\/[^/]+\.webp$/);
}

const nameOf = (post: UploadedPost): string => decodeURIComponent(new URL(post.files[0].url).pathname.split("/").pop()!);

test("the share page's image: srcset of 320/640/960/1280 and the original, eager and high priority; a phone loads a rendition", async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const requested = watchFiles(page);
  const response = await page.goto(`/p/${photo.code}`);
  const html = (await response!.text()).slice(0, 20_000);
  expect(html).toContain(`<meta property="og:image" content="${photo.files[0].url}"/>`);
  const img = page.locator("main article img").first();
  const name = nameOf(photo).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const srcset = (await img.getAttribute("srcset")) ?? "";
  for (const width of [320, 640, 960, 1280]) expect(srcset).toMatch(new RegExp(`/cdn/${photo.code}/r/${width}/${name}\\.webp ${width}w`));
  expect(srcset).toContain(`${photo.files[0].url} 1600w`);
  expect(await img.getAttribute("sizes")).toBeTruthy();
  expect(await img.getAttribute("loading")).toBe("eager");
  expect(await img.getAttribute("fetchpriority")).toBe("high");
  // The link opens the original.
  expect(await page.locator("main article a:has(img)").first().getAttribute("href")).toBe(photo.files[0].url);
  await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBeGreaterThan(0);
  expect(await img.evaluate((el: HTMLImageElement) => el.currentSrc)).toMatch(new RegExp(`/cdn/${photo.code}/r/(640|960|1280)/`));
  await page.waitForLoadState("networkidle");
  expect(
    requested.every((path) => /\/r\/\d+\//.test(path)),
    requested.join(" "),
  ).toBe(true);
});

test("a 1.75x phone (Lighthouse's Moto G Power) loads the 960 rendition, not the 1280", async ({ browser }) => {
  // Its ~380 px column needs 665 device pixels: the 640 is too soft, and the 1280 was 2.2x
  // the bytes of the 960 on bench:pages' photo (docs/renditions.md).
  const context = await browser.newContext({ viewport: { width: 412, height: 823 }, deviceScaleFactor: 1.75 });
  try {
    const page = await context.newPage();
    const requested = watchFiles(page);
    await page.goto(`/p/${photo.code}`);
    const img = page.locator("main article img").first();
    await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBeGreaterThan(0);
    expect(await img.evaluate((el: HTMLImageElement) => el.currentSrc)).toMatch(new RegExp(`/cdn/${photo.code}/r/960/`));
    await page.waitForLoadState("networkidle");
    expect(
      requested.filter((path) => /\/r\/1280\/|\.png$/.test(path)),
      requested.join(" "),
    ).toEqual([]);
  } finally {
    await context.close();
  }
});

test("the profile grid loads renditions", async ({ page }) => {
  const requested = watchFiles(page);
  await page.goto(`/u/${owner.username}`);
  const tile = page.locator(`a[href="/p/${photo.code}"] img`);
  await expectRenditionTile(tile, photo.code, nameOf(photo));
  await page.waitForLoadState("networkidle");
  expectOnlyRenditions(requested);
});

test("the discover feed loads renditions", async ({ page }) => {
  const requested = watchFiles(page);
  await page.goto("/discover");
  const tiles = page.locator('main a[href^="/p/"] img');
  await expect(tiles.first()).toBeVisible();
  for (const img of await tiles.all()) expect(await img.getAttribute("srcset")).toMatch(/\/r\/320\/.+ \d+w/);
  await page.waitForLoadState("networkidle");
  expectOnlyRenditions(requested);
});

test("the GIF search loads renditions", async ({ page }) => {
  const requested = watchFiles(page);
  await page.goto(`/discover/gifs?q=${gifWord}`);
  await expectRenditionTile(page.locator(`a[href="/p/${gif.code}"] img`), gif.code, nameOf(gif));
  await page.waitForLoadState("networkidle");
  expectOnlyRenditions(requested);
});

test("the dashboard gallery loads renditions, signed for private posts", async ({ page }) => {
  await updatePost(owner, photo.code, { privacy: "private" });
  const requested = watchFiles(page);
  await signIn(page, owner.username, owner.password);
  await page.goto("/dashboard");
  const tile = page.locator(`[aria-label="Posts"] li[data-code="${photo.code}"] img`);
  await expectRenditionTile(tile, photo.code, nameOf(photo));
  expect(await tile.getAttribute("srcset")).toMatch(/\.webp\?exp=\d+&sig=[\w-]+ 320w/);
  await page.waitForLoadState("networkidle");
  expectOnlyRenditions(requested);
});
