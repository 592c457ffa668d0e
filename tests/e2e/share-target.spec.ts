/**
 * The installable app and its share target (docs/share-target.md) in a real Chromium: the
 * manifest's fields and icons, and a signed-in page POSTing multipart to /share-target as the
 * phone's share sheet does (a file becomes a post, a URL a short link, text is refused under
 * the default UPLOAD_FILES=media), at 390 and 1280 px. Signed out, it redirects to sign-in.
 */
import { readFile } from "node:fs/promises";
import { expect, type Page, test } from "@playwright/test";
import { fixture } from "../support/media";
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
