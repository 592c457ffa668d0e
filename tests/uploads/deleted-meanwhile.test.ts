/**
 * Issue 39 §4: an upload racing its account's deletion answered `internal` (a foreign-key
 * error). The account is deleted while the body is still arriving (after the key was
 * checked); the answer is a clear 4xx and nothing is left behind.
 */
import { readFile } from "node:fs/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { deleteAccount } from "@/lib/accounts/delete";
import { cliActor } from "@/lib/audit/log";
import { db } from "@/lib/db/client";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestPost, createTestUser } from "../support/fixtures";
import { api } from "../support/http";
import { fixture } from "../support/media";

useTestDatabase();
useCounterStore({ perTest: true });

let png: Buffer;
beforeAll(async () => {
  png = await readFile(await fixture("png"));
});

/** A multipart body whose second half is sent only once `resume` is called; `reading` resolves when the server reads it. */
function pausedBody(file: Buffer) {
  const boundary = "----deleted-meanwhile";
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const half = Math.floor(file.length / 2);
  let resume!: () => void;
  const resumed = new Promise<void>((r) => (resume = r));
  let markReading!: () => void;
  const reading = new Promise<void>((r) => (markReading = r));
  let pulls = 0;
  // pull, not start: the first half goes only when the server reads the body, after the key is checked.
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      pulls++;
      if (pulls === 1) {
        controller.enqueue(Buffer.concat([head, file.subarray(0, half)]));
        markReading();
        return;
      }
      await resumed;
      controller.enqueue(Buffer.concat([file.subarray(half), tail]));
      controller.close();
    },
  });
  return { body, contentType: `multipart/form-data; boundary=${boundary}`, resume, reading };
}

describe("an upload whose account is deleted meanwhile", () => {
  it("POST /upload answers 401 with a clear message, not internal", async () => {
    const user = await createTestUser();
    const paused = pausedBody(png);
    const upload = api("/upload", {
      method: "POST",
      key: user.apiKey,
      headers: { "content-type": paused.contentType },
      rawBody: paused.body,
    });
    await paused.reading;
    await deleteAccount(user.id, cliActor(), { deleteTeams: true });
    paused.resume();
    const reply = await upload;
    expect(reply.status, reply.text).toBe(401);
    expect(reply.body.error.type).toBe("unauthorized");
    expect(reply.body.error.message).toMatch(/deleted/);
    expect(await db().post.count({ where: { userId: user.id } })).toBe(0);
  });

  it("POST /posts/{code}/files answers a 4xx too (the post went with the account)", async () => {
    const user = await createTestUser();
    const post = await createTestPost(user.id, { privacy: "public" });
    const paused = pausedBody(png);
    const append = api(`/posts/${post.code}/files`, {
      method: "POST",
      key: user.apiKey,
      headers: { "content-type": paused.contentType },
      rawBody: paused.body,
    });
    await paused.reading;
    await deleteAccount(user.id, cliActor(), { deleteTeams: true });
    paused.resume();
    const reply = await append;
    expect([401, 404], reply.text).toContain(reply.status);
    expect(["unauthorized", "not_found"]).toContain(reply.body.error.type);
  });
});
