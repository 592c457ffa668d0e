/**
 * The dashboard's webhooks page in a real Chromium: add a webhook (the secret shown once),
 * send a test, see the delivery log with the receiver's answers, and an upload's signed
 * event reaching a real receiver (docs/webhooks.md).
 */
import { expect, test } from "@playwright/test";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { verifySignature } from "../../lib/webhooks/signature";
import { fixture } from "../support/media";
import { createUser, signIn, upload } from "./support";

test("webhooks: create, secret once, test ping, delivery log, signed upload event", async ({ page }) => {
  test.setTimeout(120_000);
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200, { "content-type": "text/plain" }).end("received by e2e");
    });
  });
  await new Promise<void>((done) => receiver.listen(0, "127.0.0.1", done));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/e2e-hook`;
  try {
    const user = await createUser();
    await signIn(page, user.username, user.password);
    await page.goto("/dashboard");
    await page.getByRole("link", { name: "Webhooks" }).click();
    await expect(page.getByRole("heading", { name: "Webhooks" })).toBeVisible();
    await expect(page.getByText("No webhooks yet.")).toBeVisible();

    // A private address the operator did not allow is refused with the guard's message.
    const form = page.getByRole("form", { name: "Add a webhook" });
    await form.getByLabel("Payload URL").fill("http://169.254.169.254/latest/meta-data/");
    await form.getByRole("button", { name: "Add webhook" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "169.254.169.254" })).toContainText("private, loopback or link-local");

    await form.getByLabel("Payload URL").fill(hookUrl);
    await form.getByLabel("Comment received").check();
    await form.getByRole("button", { name: "Add webhook" }).click();
    const secret = (await page.getByTestId("webhook-secret").textContent())?.trim() ?? "";
    expect(secret).toMatch(/^whsec_/);
    const card = page.getByRole("listitem", { name: `Webhook ${hookUrl}` });
    await expect(card).toContainText("upload, comment.received");
    await expect(card).toContainText("Active");

    // The secret is shown once: after a reload only the webhook is listed.
    await page.reload();
    await expect(card).toBeVisible();
    await expect(page.getByTestId("webhook-secret")).toHaveCount(0);

    // Send test: the ping reaches the receiver and shows in the log with its answer.
    await card.getByRole("button", { name: "Send test" }).click();
    await expect.poll(() => received.length, { timeout: 30_000 }).toBe(1);
    await expect(async () => {
      await card.getByRole("button", { name: "Refresh" }).click();
      await expect(card.getByRole("row").filter({ hasText: "ping" })).toContainText("200", { timeout: 1000 });
    }).toPass({ timeout: 30_000 });
    await expect(card.getByRole("row").filter({ hasText: "ping" })).toContainText("received by e2e");

    // An upload's event, signed with the secret the page showed.
    const post = await upload(user, await fixture("png"), "image/png");
    await expect.poll(() => received.length, { timeout: 30_000 }).toBe(2);
    const event = received[1];
    expect(JSON.parse(event.body)).toMatchObject({ type: "upload", data: { post: { code: post.code } } });
    expect(
      verifySignature(secret, String(event.headers["webhook-signature"]), String(event.headers["webhook-timestamp"]), event.body),
    ).toBe(true);
    await expect(async () => {
      await card.getByRole("button", { name: "Refresh" }).click();
      await expect(card.getByRole("row").filter({ hasText: "upload" })).toContainText("200", { timeout: 1000 });
    }).toPass({ timeout: 30_000 });

    // Pause, then re-enable.
    await card.getByRole("button", { name: "Pause" }).click();
    await expect(card).toContainText("Paused by the owner.");
    await card.getByRole("button", { name: "Re-enable" }).click();
    await expect(card).toContainText("Active");
  } finally {
    receiver.close();
  }
});
