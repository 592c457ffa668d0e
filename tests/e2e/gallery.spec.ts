/**
 * The dashboard gallery's direct links and the section tabs on a phone (issue 26 §5), in a
 * real Chromium at 390 and 1280 px: "Direct link" on a card and "Copy direct link" on the
 * share page copy the first file's /cdn URL; at 390 px the tabs row scrolls sideways, fades
 * at its edge and brings the last tab fully into view.
 */
import { expect, test } from "@playwright/test";
import { fixture } from "../support/media";
import { createUser, type E2EUser, signIn, updatePost, upload, type UploadedPost } from "./support";

const WIDTHS = [390, 1280] as const;

let user: E2EUser;
let post: UploadedPost;

test.beforeAll(async () => {
  user = await createUser();
  post = await upload(user, await fixture("png"), "image/png");
  await updatePost(user, post.code, { title: "Direct one" });
});

for (const width of WIDTHS) {
  test(`copy direct link and the tabs at ${width} px`, async ({ page, context }) => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await page.setViewportSize({ width, height: 800 });
    await signIn(page, user.username, user.password);
    await page.goto("/dashboard");

    await page.getByRole("button", { name: "Copy direct link of Direct one" }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(post.files[0].url);
    expect(new URL(post.files[0].url).pathname).toMatch(/^\/cdn\//);

    const nav = page.getByRole("navigation", { name: "Dashboard" });
    const settings = nav.getByRole("link", { name: "Settings" });
    if (width === 390) {
      const row = await nav.evaluate((el) => ({
        overflows: el.scrollWidth > el.clientWidth,
        overflow: getComputedStyle(el).overflowX,
        mask: getComputedStyle(el).maskImage || getComputedStyle(el).getPropertyValue("-webkit-mask-image"),
      }));
      expect(row.overflows).toBe(true);
      expect(row.overflow).toBe("auto");
      expect(row.mask).toContain("linear-gradient");
      await expect(settings).not.toBeInViewport({ ratio: 1 });
      await nav.evaluate((el) => {
        el.scrollLeft = el.scrollWidth;
      });
      // Past the fade: the whole last tab shows once the row is scrolled to its end.
      const edge = await nav.evaluate((el) => el.getBoundingClientRect().right);
      const box = await settings.boundingBox();
      expect(box && box.x + box.width <= edge - 30).toBe(true);
    } else {
      await expect(settings).toBeInViewport({ ratio: 1 });
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);

    await page.goto(new URL(post.url).pathname);
    await page.getByRole("button", { name: "Copy direct link" }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(post.files[0].url);
  });
}
