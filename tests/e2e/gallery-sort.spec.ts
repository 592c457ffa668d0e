/**
 * The dashboard gallery's order and list view (docs/gallery-sort.md, "Dashboard") in a real
 * Chromium at 390 and 1280 px: the Sort select reorders the posts through GET /api/posts?sort=
 * and stays in the address across a reload; the Grid/List toggle (by keyboard) shows a table
 * of name, type, size, date and a video's duration, remembered across a reload; the list
 * scrolls inside its own region at 390 px (the page never sideways) and reads in dark mode.
 */
import { expect, type Page, test } from "@playwright/test";
import { fixture } from "../support/media";
import { createUser, type E2EUser, screenshots, signIn, updatePost, upload } from "./support";

const WIDTHS = [390, 1280] as const;

let user: E2EUser;
const codes: Record<string, string> = {};

test.beforeAll(async () => {
  user = await createUser();
  // Uploaded in this order, so newest first is clip, apple, banana; by name apple, banana, clip.
  codes.banana = (await upload(user, await fixture("png"), "image/png")).code;
  await updatePost(user, codes.banana, { title: "Banana" });
  codes.apple = (await upload(user, await fixture("jpegExif"), "image/jpeg")).code;
  await updatePost(user, codes.apple, { title: "apple" });
  codes.clip = (await upload(user, await fixture("mp4"), "video/mp4")).code;
  await updatePost(user, codes.clip, { title: "Clip" });
});

const gridOrder = (page: Page) =>
  page
    .getByRole("list", { name: "Posts" })
    .locator("li[data-code]")
    .evaluateAll((els) => els.map((el) => el.getAttribute("data-code")));
const listOrder = (page: Page) =>
  page.locator("table tbody tr[data-code]").evaluateAll((els) => els.map((el) => el.getAttribute("data-code")));

for (const width of WIDTHS) {
  test(`sort and list view at ${width} px`, async ({ page }) => {
    await page.setViewportSize({ width, height: 900 });
    await signIn(page, user.username, user.password);
    await page.goto("/dashboard");
    await page.evaluate(() => window.localStorage.removeItem("gallery-view"));
    await page.reload();

    const names = ["clip", "apple", "banana"].map((n) => codes[n]);
    await expect.poll(() => gridOrder(page)).toEqual(names);

    const sort = page.getByLabel("Sort");
    await expect(sort).toHaveValue("date");
    const asked = page.waitForRequest(
      (r) => new URL(r.url()).pathname === "/api/posts" && new URL(r.url()).searchParams.get("sort") === "name",
    );
    await sort.selectOption({ label: "Name, A to Z" });
    await asked;
    await expect.poll(() => gridOrder(page)).toEqual(["apple", "banana", "clip"].map((n) => codes[n]));
    expect(new URL(page.url()).searchParams.get("sort")).toBe("name");
    await page.reload();
    await expect(page.getByLabel("Sort")).toHaveValue("name");
    await expect.poll(() => gridOrder(page)).toEqual(["apple", "banana", "clip"].map((n) => codes[n]));

    // The view toggle by keyboard: Grid is pressed; Tab to List, Enter.
    const grid = page.getByRole("button", { name: "Grid", exact: true });
    const list = page.getByRole("button", { name: "List", exact: true });
    await expect(grid).toHaveAttribute("aria-pressed", "true");
    await grid.focus();
    await page.keyboard.press("Tab");
    await expect(list).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(list).toHaveAttribute("aria-pressed", "true");

    const table = page.getByRole("table");
    await expect(table.getByRole("columnheader")).toHaveText(["Selected", "Name", "Type", "Size", "Date", "Duration", "Direct link"]);
    await expect.poll(() => listOrder(page)).toEqual(["apple", "banana", "clip"].map((n) => codes[n]));
    const row = (name: string) => page.locator(`tr[data-code="${codes[name]}"]`);
    await expect(row("clip").locator('[data-col="type"]')).toHaveText("video/mp4");
    await expect(row("clip").locator('[data-col="duration"]')).toHaveText(/^0:0[12]$/);
    await expect(row("banana").locator('[data-col="type"]')).toHaveText("image/png");
    await expect(row("banana").locator('[data-col="duration"]')).toContainText("—");
    await expect(row("apple").locator('[data-col="size"]')).toHaveText(/^\d+(\.\d)? (B|KB|MB)$/);
    await expect(row("apple").locator('[data-col="date"] time')).toHaveAttribute("datetime", /^\d{4}-\d\d-\d\dT/);
    await expect(row("clip").getByRole("button", { name: "Edit Clip" })).toBeVisible();
    await expect(row("clip").getByRole("checkbox", { name: "Select Clip" })).toBeVisible();

    // Sorting applies to the list too, and the choice of view outlives a reload.
    await page.getByLabel("Sort").selectOption("-name");
    await expect.poll(() => listOrder(page)).toEqual(["clip", "banana", "apple"].map((n) => codes[n]));
    await page.reload();
    await expect(page.getByRole("button", { name: "List", exact: true })).toHaveAttribute("aria-pressed", "true");
    await expect.poll(() => listOrder(page)).toEqual(["clip", "banana", "apple"].map((n) => codes[n]));

    // The page itself never scrolls sideways (nothing in the table, not even its visually
    // hidden labels, escapes the region); at 390 px the table does, inside its focusable region.
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    const region = page.getByRole("region", { name: "Posts, as a list" });
    await expect(region).toHaveAttribute("tabindex", "0");
    if (width === 390) {
      expect(await region.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    }

    // Dark mode: the names read light on the dark page.
    await page.emulateMedia({ colorScheme: "dark" });
    // Computed colours may be lab(): a canvas turns one into RGB.
    const [r, g, b] = await row("clip")
      .getByRole("button", { name: "Edit Clip" })
      .evaluate((el) => {
        const context = document.createElement("canvas").getContext("2d")!;
        context.fillStyle = getComputedStyle(el).color;
        context.fillRect(0, 0, 1, 1);
        return Array.from(context.getImageData(0, 0, 1, 1).data.slice(0, 3));
      });
    expect(Math.min(r, g, b)).toBeGreaterThan(180);
    await screenshots(page, "gallery-list");
    await page.emulateMedia({ colorScheme: "light" });

    // Back to the grid and the default order for the next width.
    await page.getByRole("button", { name: "Grid", exact: true }).click();
    await page.getByLabel("Sort").selectOption("date");
    expect(new URL(page.url()).searchParams.has("sort")).toBe(false);
  });
}
