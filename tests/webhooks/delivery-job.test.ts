/**
 * The delivery job and event matching in-process, on the test database (SQLite, or
 * PostgreSQL with TEST_DATABASE_URL) with a real receiver: the address guard at attempt
 * time (a URL that became private after it was checked), the log kept to
 * WEBHOOK_LOG_KEEP, disabling after WEBHOOK_DISABLE_AFTER failed events (pings never
 * count), disabled hooks skipped, and which webhooks an event goes to.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { resetEnv } from "@/lib/config/env";
import type { JobRow } from "@/lib/jobs/queue";
import { PermanentJobError } from "@/lib/jobs/worker";
import { webhookJobHandler, type DeliveryPayload } from "@/lib/webhooks/delivery-job";
import { queueDeliveries } from "@/lib/webhooks/events";
import { useTestDatabase } from "../support/db";
import { createTestUser } from "../support/fixtures";
import { startReceiver, type Receiver } from "./receiver";

useTestDatabase();

const saved = { ...process.env };
let receiver: Receiver;
let userId: string;

beforeAll(async () => {
  Object.assign(process.env, { WEBHOOK_ALLOW_PRIVATE: "127.0.0.1", WEBHOOK_LOG_KEEP: "3", WEBHOOK_DISABLE_AFTER: "2" });
  resetEnv();
  receiver = await startReceiver();
  userId = (await createTestUser()).id;
});
afterAll(async () => {
  for (const name of ["WEBHOOK_ALLOW_PRIVATE", "WEBHOOK_LOG_KEEP", "WEBHOOK_DISABLE_AFTER"]) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  resetEnv();
  await receiver?.close();
});

const hook = (url: string, extra: { events?: string; appId?: string; enabled?: boolean } = {}) =>
  db().webhook.create({
    data: { userId, url, secret: "whsec_test", events: extra.events ?? "upload", appId: extra.appId, enabled: extra.enabled ?? true },
  });

const payload = (webhookId: string, event = "upload", n = 0): DeliveryPayload => ({
  webhookId,
  eventId: `evt_${event}_${n}`,
  event,
  format: "generic",
  body: `{"n":${n}}`,
});

const run = (p: DeliveryPayload, attempts = 1) =>
  webhookJobHandler.run(p, {
    job: {
      id: "j",
      kind: "webhook",
      key: null,
      payload: JSON.stringify(p),
      state: "running",
      attempts,
      maxAttempts: 3,
      lastError: null,
    } as JobRow,
    signal: new AbortController().signal,
  });

describe("the webhook delivery job", () => {
  it("refuses, at attempt time, a URL that points at a private address (no retries) and logs why", async () => {
    const h = await hook("http://10.0.0.1/hook");
    await expect(run(payload(h.id))).rejects.toBeInstanceOf(PermanentJobError);
    const [entry] = await db().webhookDelivery.findMany({ where: { webhookId: h.id } });
    expect(entry).toMatchObject({ ok: false, status: null, attempt: 1 });
    expect(entry.error).toMatch(/10\.0\.0\.1, a private, loopback or link-local address/);
  });

  it("keeps the newest WEBHOOK_LOG_KEEP attempts of a webhook", async () => {
    const h = await hook(receiver.url("/log"));
    for (let n = 0; n < 5; n++) await run(payload(h.id, "upload", n));
    expect(receiver.requests("/log")).toHaveLength(5);
    const log = await db().webhookDelivery.findMany({ where: { webhookId: h.id }, orderBy: { createdAt: "asc" } });
    expect(log.map((d) => d.eventId)).toEqual(["evt_upload_2", "evt_upload_3", "evt_upload_4"]);
    expect(log.every((d) => d.ok && d.status === 200 && d.response === "thanks")).toBe(true);
  });

  it("fails the attempt on a non-2xx answer, and disables after WEBHOOK_DISABLE_AFTER failed events; pings never count", async () => {
    receiver.answer("/down", 503);
    const h = await hook(receiver.url("/down"));
    await expect(run(payload(h.id))).rejects.toThrow(/answered 503/);
    await webhookJobHandler.onFailed!(payload(h.id, "ping"), new Error("x"));
    await webhookJobHandler.onFailed!(payload(h.id, "upload", 1), new Error("x"));
    expect(await db().webhook.findUniqueOrThrow({ where: { id: h.id } })).toMatchObject({ enabled: true, failureCount: 1 });
    await webhookJobHandler.onFailed!(payload(h.id, "upload", 2), new Error("x"));
    const disabled = await db().webhook.findUniqueOrThrow({ where: { id: h.id } });
    expect(disabled).toMatchObject({ enabled: false, failureCount: 2 });
    expect(disabled.disabledAt).toBeInstanceOf(Date);
    expect(disabled.disabledReason).toMatch(/2 events in a row/);

    // Disabled: queued events are dropped (no request, no log entry); a ping still goes.
    receiver.answer("/down", 200);
    const before = receiver.requests("/down").length;
    await run(payload(h.id, "upload", 3));
    expect(receiver.requests("/down")).toHaveLength(before);
    await run(payload(h.id, "ping", 4));
    expect(receiver.requests("/down")).toHaveLength(before + 1);
  });

  it("a success resets the failure count", async () => {
    const h = await hook(receiver.url("/recovers"));
    await webhookJobHandler.onFailed!(payload(h.id), new Error("x"));
    expect((await db().webhook.findUniqueOrThrow({ where: { id: h.id } })).failureCount).toBe(1);
    await run(payload(h.id));
    const after = await db().webhook.findUniqueOrThrow({ where: { id: h.id } });
    expect(after.failureCount).toBe(0);
    expect(after.lastDeliveryAt).toBeInstanceOf(Date);
  });

  it("backs off base × 4^(n-1), at most an hour", () => {
    const delay = webhookJobHandler.retryDelayMs!;
    expect([1, 2, 3, 4].map(delay)).toEqual([30_000, 120_000, 480_000, 1_920_000]);
    expect(delay(9)).toBe(3_600_000);
  });
});

describe("which webhooks an event goes to", () => {
  it("the owner's enabled webhooks subscribed to the type, account-wide or of the post's app", async () => {
    const owner = await createTestUser();
    const other = await createTestUser();
    const [appA, appB] = await db().app.findMany({ where: { userId: owner.id }, orderBy: { createdAt: "asc" } });
    const make = (data: { userId: string; events: string; appId?: string; enabled?: boolean }) =>
      db().webhook.create({ data: { url: receiver.url("/match"), secret: "whsec_x", ...data } });
    const wide = await make({ userId: owner.id, events: "upload,post.deleted" });
    const ofA = await make({ userId: owner.id, events: "upload", appId: appA.id });
    await make({ userId: owner.id, events: "upload", appId: appB.id });
    await make({ userId: owner.id, events: "comment.received" });
    await make({ userId: owner.id, events: "upload", enabled: false });
    await make({ userId: other.id, events: "upload" });

    const targets = async (type: "upload" | "post.deleted", appId: string | null) => {
      const ids = await queueDeliveries({ type, userId: owner.id, appId, data: { message: "m" } });
      const jobs = await db().job.findMany({ where: { id: { in: ids } } });
      return jobs.map((j) => (JSON.parse(j.payload) as DeliveryPayload).webhookId).sort();
    };
    expect(await targets("upload", appA.id)).toEqual([wide.id, ofA.id].sort());
    expect(await targets("upload", null)).toEqual([wide.id]);
    expect(await targets("post.deleted", appA.id)).toEqual([wide.id]);
  });
});
