/**
 * The receive gate as uploads meet it (lib/uploads/receive-gate.ts): one slot here, so a
 * body that holds it and goes quiet would block every other upload if the gate did not take
 * the slot back.
 */
import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestUser } from "../support/fixtures";
import { api } from "../support/http";
import { fixture } from "../support/media";

process.env.UPLOAD_RECEIVE_SLOTS = "1";

useTestDatabase();
useCounterStore();

let png: Buffer;
beforeAll(async () => {
  png = await readFile(await fixture("png"));
});

/** A multipart body sent in two halves; the second only once `resume` is called. */
function pausedBody(file: Buffer) {
  const boundary = "----receive-order-test";
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const half = Math.floor(file.length / 2);
  let resume!: () => void;
  const resumed = new Promise<void>((r) => (resume = r));
  let sentFirstHalf!: () => void;
  const firstHalfSent = new Promise<void>((r) => (sentFirstHalf = r));
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(Buffer.concat([head, file.subarray(0, half)]));
      sentFirstHalf();
      await resumed;
      controller.enqueue(Buffer.concat([file.subarray(half), tail]));
      controller.close();
    },
  });
  return { body, contentType: `multipart/form-data; boundary=${boundary}`, resume, firstHalfSent };
}

describe("uploads received a few at a time", () => {
  it("a body that goes quiet mid-upload does not hold the next upload back", async () => {
    const [slow, quick] = [await createTestUser({ plan: "ultra" }), await createTestUser({ plan: "ultra" })];
    const paused = pausedBody(png);
    let slowDone = false;
    const slowUpload = api("/upload", {
      method: "POST",
      key: slow.apiKey,
      headers: { "content-type": paused.contentType },
      rawBody: paused.body,
    }).finally(() => (slowDone = true));
    await paused.firstHalfSent;
    await sleep(10); // the slow body has the one slot

    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(png)], { type: "image/png" }), "b.png");
    const quickReply = await api("/upload", { method: "POST", key: quick.apiKey, rawBody: form });
    expect(quickReply.status).toBe(200);
    expect(slowDone).toBe(false); // still half-sent

    paused.resume();
    const slowReply = await slowUpload;
    expect(slowReply.status).toBe(200);
    expect(slowReply.body.post.files[0].width).toBeGreaterThan(0);
  });
});
