/**
 * The installable app and its share target (docs/share-target.md) in a real Chromium: the
 * manifest's fields and icons, and a signed-in page POSTing multipart to /share-target as the
 * phone's share sheet does (a file becomes a post, a URL a short link, text is refused under
 * the default UPLOAD_FILES=media), at 390 and 1280 px. Signed out, it redirects to sign-in.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, type Page, test } from "@playwright/test";
import sharp from "sharp";
import { FIXTURE_FFMPEG, fixture } from "../support/media";
import { baseUrl, createUser, type E2EUser, signIn } from "./support";

const WIDTHS = [390, 1280] as const;

interface Manifest {
  name: string;
  start_url: string;
  icons: { src: string; sizes: string; type: string }[];
  share_target: { action: string; method: string; enctype: string; params: { files: { name: string }[]; url: string; text: string } };
}

let user: E2EUser;

test.beforeAll(async () => {
  user = await createUser();
});

/** Submits a real multipart form from the page, as a navigation (what the share sheet does). */
async function share(page: Page, fields: Record<string, string>, file?: { name: string; type: string; base64: string }): Promise<void> {
  await page.evaluate(
    ({ fields, file }) => {
      const form = document.createElement("form");
      form.method = "POST";
      form.action = "/share-target";
      form.enctype = "multipart/form-data";
      for (const [name, value] of Object.entries(fields)) {
        const input = document.createElement("input");
        input.type = "hidden";
        input.name = name;
        input.value = value;
        form.append(input);
      }
      if (file) {
        const input = document.createElement("input");
        input.type = "file";
        input.name = "file";
        const bytes = Uint8Array.from(atob(file.base64), (c) => c.charCodeAt(0));
        const transfer = new DataTransfer();
        transfer.items.add(new File([bytes], file.name, { type: file.type }));
        input.files = transfer.files;
        form.append(input);
      }
      document.body.append(form);
      form.submit();
    },
    { fields, file },
  );
  await page.waitForURL((url) => url.pathname === "/dashboard/shared");
}

test("the manifest makes the dashboard installable and names the share target", async ({ request }) => {
  const response = await request.get("/manifest.webmanifest");
  expect(response.status()).toBe(200);
  const manifest = (await response.json()) as Manifest;
  expect(manifest.name).toBe("Mediahost");
  expect(manifest.start_url).toBe("/dashboard");
  expect(manifest.icons.map((icon) => icon.sizes).sort()).toEqual(["192x192", "512x512"]);
  for (const icon of manifest.icons) {
    const image = await request.get(icon.src);
    expect(image.status()).toBe(200);
    expect(image.headers()["content-type"]).toBe("image/png");
  }
  expect(manifest.share_target).toMatchObject({ action: "/share-target", method: "POST", enctype: "multipart/form-data" });
  expect(manifest.share_target.params.files[0].name).toBe("file");
  expect(manifest.share_target.params.url).toBe("url");
});

test("signed out, a share redirects to sign-in", async () => {
  const form = new FormData();
  form.append("text", "hello");
  const response = await fetch(`${baseUrl()}/share-target`, {
    method: "POST",
    body: form,
    headers: { "sec-fetch-site": "none" },
    redirect: "manual",
  });
  expect(response.status).toBe(303);
  expect(new URL(response.headers.get("location") ?? "", baseUrl()).pathname).toBe("/signin");
});

test("a cross-site share POST is refused", async () => {
  const form = new FormData();
  form.append("text", "hello");
  const response = await fetch(`${baseUrl()}/share-target`, {
    method: "POST",
    body: form,
    headers: { "sec-fetch-site": "cross-site" },
    redirect: "manual",
  });
  expect(response.status).toBe(403);
});

for (const width of WIDTHS) {
  test(`a shared image, URL and text at ${width} px`, async ({ page }) => {
    await page.setViewportSize({ width, height: 800 });
    await signIn(page, user.username, user.password);
    await page.goto("/dashboard");
    const png = await readFile(await fixture("png"));
    await share(page, { title: "" }, { name: "photo.png", type: "image/png", base64: png.toString("base64") });
    const result = page.getByTestId("share-result");
    await expect(result).toContainText("Uploaded:");
    const postUrl = await result.getByRole("link").getAttribute("href");
    expect(postUrl).toMatch(/\/p\/[A-Za-z0-9]+$/);
    expect((await page.request.get(postUrl as string)).status()).toBe(200);

    await share(page, { text: "https://example.com/shared-page" });
    await expect(result).toContainText("Short link created:");
    const shortUrl = (await result.getByRole("link").getAttribute("href")) as string;
    const followed = await fetch(shortUrl, { redirect: "manual" });
    expect(followed.status).toBe(302);
    expect(followed.headers.get("location")).toBe("https://example.com/shared-page");

    await share(page, { text: "just some words" });
    await expect(page.getByText("images and videos only")).toBeVisible();
  });
}

const MB = 1024 * 1024;
const ANDROID_CHROME =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36";

/** A phone's photo: a 12 MB JPEG (noise does not compress, as a sensor's detail barely does). */
function phonePhoto(): Promise<Buffer> {
  return sharp({
    create: { width: 3600, height: 2700, channels: 3, background: { r: 0, g: 0, b: 0 }, noise: { type: "gaussian", mean: 128, sigma: 50 } },
  })
    .jpeg({ quality: 100 })
    .toBuffer();
}

/** A phone's clip: a 40 MB H.264 + AAC MP4, made of random frames so that it stays that large. */
async function phoneClip(): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), "share-clip-"));
  try {
    const out = join(dir, "clip.mp4");
    await promisify(execFile)(FIXTURE_FFMPEG, [
      ...["-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "640x360", "-r", "30", "-i", "/dev/urandom"],
      ...["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "2.4"],
      ...["-c:v", "libx264", "-preset", "ultrafast", "-qp", "1", "-c:a", "aac", "-shortest", out],
    ]);
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test("a 12 MB photo and a 40 MB clip shared as Chrome on Android does (issue 39 §3)", async ({ page }) => {
  test.setTimeout(240_000);
  await signIn(page, user.username, user.password);
  const [photo, clip] = await Promise.all([phonePhoto(), phoneClip()]);
  expect(photo.length).toBeGreaterThan(12 * MB);
  expect(clip.length).toBeGreaterThan(40 * MB);
  // What Chrome on Android posts for the manifest's share_target: the text fields (empty for a
  // gallery share), then each file under `file`, as a navigation the browser starts itself.
  const form = new FormData();
  form.append("title", "");
  form.append("text", "");
  form.append("url", "");
  form.append("file", new Blob([new Uint8Array(photo)], { type: "image/jpeg" }), "PXL_20261206_101500123.jpg");
  form.append("file", new Blob([new Uint8Array(clip)], { type: "video/mp4" }), "PXL_20261206_101530456.mp4");
  const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
  const response = await fetch(`${baseUrl()}/share-target`, {
    method: "POST",
    body: form,
    headers: { cookie, "user-agent": ANDROID_CHROME, "sec-fetch-site": "none", "sec-fetch-mode": "navigate", "sec-fetch-dest": "document" },
    redirect: "manual",
  });
  expect(response.status).toBe(303);
  const location = new URL(response.headers.get("location") ?? "", baseUrl());
  expect(location.searchParams.get("error"), location.search).toBeNull();
  expect(location.searchParams.get("kind")).toBe("post");

  await page.goto(`${location.pathname}${location.search}`);
  const result = page.getByTestId("share-result");
  await expect(result).toContainText("Uploaded:");
  const postUrl = (await result.getByRole("link").getAttribute("href")) as string;
  const code = new URL(postUrl).pathname.split("/").pop();
  // One post with both files, unlisted (the operator's default for share-sheet uploads, issue 38), read with the same session.
  // From the page: the cookie authenticates same-origin requests only.
  const post = (await page.evaluate(async (c) => (await fetch(`/api/posts/${c}`)).json(), code)) as {
    post: { privacy: string; files: { mime_type: string; size: number }[] };
  };
  expect(post.post.privacy).toBe("unlisted");
  expect(post.post.files.map((f) => f.mime_type)).toEqual(["image/jpeg", "video/mp4"]);
  expect(post.post.files[1].size).toBeGreaterThan(30 * MB);
});
