/**
 * Share pages in a real browser and through a real OpenGraph parser: unfurl tags in
 * <head>, oEmbed, video playback and Range, private posts, escaping; screenshots.
 */
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import ogs from "open-graph-scraper";
import sharp from "sharp";
import { fixture } from "../support/media";
import { baseUrl, createUser, screenshots, signIn, updatePost, upload, watchPolicy, type E2EUser, type UploadedPost } from "./support";

const CRAWLER = "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)";

let owner: E2EUser;
let image: UploadedPost;
let video: UploadedPost;

/** A 1200x800 picture worth looking at in the screenshots. */
async function sampleImage(): Promise<string> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="800">
    <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#4a6ff0"/><stop offset="1" stop-color="#f0a04a"/></linearGradient></defs>
    <rect width="1200" height="800" fill="url(#g)"/><circle cx="600" cy="400" r="180" fill="#ffffff" fill-opacity="0.35"/></svg>`;
  const path = join(tmpdir(), `e2e-sample-${process.pid}.png`);
  await writeFile(path, await sharp(Buffer.from(svg)).png().toBuffer());
  return path;
}

async function crawl(url: string): Promise<{ status: number; html: string }> {
  const response = await fetch(url, { headers: { "user-agent": CRAWLER } });
  return { status: response.status, html: await response.text() };
}

const head = (html: string): string => html.slice(0, html.indexOf("</head>"));

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  owner = await createUser();
  image = await upload(owner, await sampleImage(), "image/png");
  await updatePost(owner, image.code, { title: "Sunset gradient", description: "A test picture & more" });
  video = await upload(owner, await fixture("mp4"), "video/mp4");
  await updatePost(owner, video.code, { title: "Test clip" });
});

test("image share page unfurls: OpenGraph and Twitter tags in <head>, oEmbed", async () => {
  const page = await crawl(image.url);
  expect(page.status).toBe(200);
  const { result } = await ogs({ html: page.html });
  expect(result.ogTitle).toBe("Sunset gradient");
  expect(result.ogDescription).toBe("A test picture & more");
  expect(result.ogSiteName).toBe("Mediahost");
  expect(result.ogImage?.[0]?.url).toBe(image.files[0].url);
  expect(Number(result.ogImage?.[0]?.width)).toBe(1200);
  expect(Number(result.ogImage?.[0]?.height)).toBe(800);
  expect(result.twitterCard).toBe("summary_large_image");
  // Every unfurl tag sits in <head>, not streamed into <body>.
  const top = head(page.html);
  for (const tag of [
    'property="og:image"',
    'property="og:title"',
    'name="twitter:card"',
    'name="theme-color"',
    "application/json+oembed",
  ]) {
    expect(top, tag).toContain(tag);
  }
  const oembedHref =
    /<link[^>]+type="application\/json\+oembed"[^>]*href="([^"]+)"/.exec(top) ??
    /<link[^>]+href="([^"]+)"[^>]*type="application\/json\+oembed"/.exec(top);
  expect(oembedHref).toBeTruthy();
  const oembed = await (await fetch(oembedHref![1].replace(/&amp;/g, "&"))).json();
  expect(oembed).toMatchObject({
    version: "1.0",
    type: "photo",
    title: "Sunset gradient",
    author_name: owner.username,
    url: image.files[0].url,
    width: 1200,
    height: 800,
  });
});

test("video share page: og:video tags, the video plays, Range works", async ({ page }) => {
  const crawled = await crawl(video.url);
  const { result } = await ogs({ html: crawled.html });
  expect(result.ogVideo?.[0]?.url).toBe(video.files[0].url);
  expect(result.ogVideo?.[0]?.type).toBe("video/mp4");
  expect(Number(result.ogVideo?.[0]?.width)).toBe(320);
  expect(result.ogImage?.[0]?.url).toBe(video.files[0].thumbnail_url);
  expect(result.twitterCard).toBe("player");
  expect(head(crawled.html)).toContain('property="og:video');
  expect(head(crawled.html)).toContain(`<meta property="og:video:url" content="${video.files[0].url}"/>`);

  await page.goto(video.url);
  const player = page.locator("video");
  await expect(player).toHaveAttribute("poster", video.files[0].thumbnail_url!);
  await player.evaluate(async (el: HTMLVideoElement) => {
    el.muted = true;
    await el.play();
  });
  await expect.poll(() => player.evaluate((el: HTMLVideoElement) => el.currentTime), { timeout: 15_000 }).toBeGreaterThan(0.3);
  expect(await player.evaluate((el: HTMLVideoElement) => el.readyState)).toBeGreaterThanOrEqual(2);

  const ranged = await fetch(video.files[0].url, { headers: { range: "bytes=0-99" } });
  expect(ranged.status).toBe(206);
  expect(ranged.headers.get("content-range")).toMatch(/^bytes 0-99\/\d+$/);
  expect((await ranged.arrayBuffer()).byteLength).toBe(100);
});

test("a <script> title is shown as text, never run", async ({ page }) => {
  const title = "<script>alert(1)</script>";
  await updatePost(owner, image.code, { title });
  let dialogs = 0;
  page.on("dialog", (dialog) => {
    dialogs++;
    void dialog.dismiss();
  });
  await page.goto(image.url);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(title);
  const crawled = await crawl(image.url);
  expect(crawled.html).not.toContain("<script>alert(1)</script>");
  const { result } = await ogs({ html: crawled.html });
  expect(result.ogTitle).toBe(title);
  expect(dialogs).toBe(0);
  await updatePost(owner, image.code, { title: "Sunset gradient" });
});

test("a visitor without a session gets the share page without Next's scripts; the copy buttons still work", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const scripts: string[] = [];
  page.on("request", (request) => {
    if (request.resourceType() === "script") scripts.push(new URL(request.url()).pathname);
  });
  const problems = await watchPolicy(page);
  await page.goto(image.url);
  await page.getByRole("button", { name: "Copy link" }).click();
  await expect(page.getByRole("button", { name: "Copied!" })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(image.url);
  await page.getByRole("button", { name: "Copy direct link" }).click();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(image.files[0].url);
  await page.waitForLoadState("networkidle");
  // One small script (lib/server/share-islands.ts), inline and allowed by the page's CSP
  // nonce (it ran: the copy buttons worked, and the policy refused nothing).
  expect(scripts).toEqual([]);
  expect(await page.locator("script[src]").count()).toBe(0);
  expect(await page.locator("script:not([src])").count()).toBe(1);
  expect(await page.evaluate(() => document.documentElement.dataset.islands)).toBe("ready");
  expect(problems).toEqual([]);

  // Signed in, the page has React again (like, comments, report).
  await signIn(page, owner.username, owner.password);
  scripts.length = 0;
  await page.goto(image.url);
  await expect(page.getByTestId("engage").getByRole("button", { name: /\blikes?\b/ })).toBeVisible();
  expect(scripts.some((path) => path.startsWith("/_next/static/"))).toBe(true);
  await page.context().clearCookies();
});

test("screenshots of the share page and discover", async ({ page }) => {
  await page.goto(image.url);
  await screenshots(page, "share-image");
  await page.goto(video.url);
  await screenshots(page, "share-video");
  await page.goto("/discover");
  await screenshots(page, "discover");
});

test("discover: a signed-in visitor likes and comments; GIF search page", async ({ page }) => {
  await signIn(page, owner.username, owner.password);
  await page.goto("/discover");
  const card = page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: "Sunset gradient" }) });
  // The buttons' names count in words (components/plural.ts): "0 likes: like", "1 like, liked by you: unlike".
  const like = card.getByRole("button", { name: /\blikes?\b/ });
  await expect(like).toHaveAttribute("aria-pressed", "false");
  await like.click();
  await expect(like).toHaveAttribute("aria-pressed", "true");
  await expect(like).toContainText("1");
  await expect(like).toHaveAccessibleName(/^1 like, liked by you: unlike$/);
  await card.getByRole("button", { name: /\bcomments?\b/ }).click();
  await card.getByLabel("Write a comment").fill("Lovely colours");
  await card.getByRole("button", { name: "Post" }).click();
  await expect(card.getByText("Lovely colours")).toBeVisible();
  await screenshots(page, "discover-signed-in");

  await page.reload();
  const again = page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: "Sunset gradient" }) });
  await expect(again.getByRole("button", { name: /\blikes?\b/ })).toHaveAttribute("aria-pressed", "true");
  await expect(again.getByRole("button", { name: /\bcomments?\b/ })).toHaveAccessibleName(/^1 comment$/);
  // The share page says the same in the singular: signed in, its like and comment buttons
  // carry the counts (docs/share-pages.md, "Like, comment and report on the share page").
  await page.goto(image.url);
  const engage = page.getByTestId("engage");
  await expect(engage.getByRole("button", { name: /\blikes?\b/ })).toHaveAccessibleName(/^1 like, liked by you/);
  await expect(engage.getByRole("button", { name: /\bcomments?\b/ })).toHaveAccessibleName(/^1 comment$/);

  await page.goto("/discover/gifs?q=nothing-matches-this");
  await expect(page.getByText("No GIFs match")).toBeVisible();
  await page.context().clearCookies();
});

test("a private post is 404 for anonymous visitors and has no media tags for its owner", async ({ page }) => {
  await updatePost(owner, image.code, { privacy: "private" });
  const anonymous = await crawl(image.url);
  expect(anonymous.status).toBe(404);
  expect(anonymous.html).not.toContain(image.files[0].url.split("?")[0]);

  const response = await page.goto(image.url);
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();

  await signIn(page, owner.username, owner.password);
  const own = await page.goto(image.url);
  expect(own?.status()).toBe(200);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Sunset gradient");
  const ogImage = await page.locator('meta[property="og:image"]').count();
  expect(ogImage).toBe(0);
  expect(await page.locator('link[type="application/json+oembed"]').count()).toBe(0);

  const unknown = await crawl(`${baseUrl()}/p/NoSuchCode1`);
  expect(unknown.status).toBe(404);
});
