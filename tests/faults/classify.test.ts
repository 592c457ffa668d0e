/**
 * Which errors mean "a dependency is away" (lib/faults/classify.ts, docs/faults.md), from
 * real sources where the machine has them (a write to /dev/full, a refused PostgreSQL
 * connection, the S3 SDK's own exception class), and the outage log's folding.
 */
import { writeFile } from "node:fs/promises";
import { S3ServiceException } from "@aws-sdk/client-s3";
import pg from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import { asUnavailable, DependencyUnavailable, faultOf, refusalFor, storing } from "@/lib/faults/classify";
import { countRefused, isDown, markDown, markUp } from "@/lib/faults/outages";
import { freePort } from "../support/server";

const s3Error = (name: string, status: number) =>
  new S3ServiceException({ name, $fault: status >= 500 ? "server" : "client", $metadata: { httpStatusCode: status }, message: name });

describe("faultOf", () => {
  it("a full volume is the storage's: ENOSPC from a real write, through storing() as DependencyUnavailable", async () => {
    const error = await writeFile("/dev/full", "x").catch((e: unknown) => e);
    expect((error as NodeJS.ErrnoException).code).toBe("ENOSPC");
    expect(faultOf(error)).toBe("storage");
    await expect(storing(() => writeFile("/dev/full", "x"))).rejects.toMatchObject({
      type: "unavailable",
      dependency: "storage",
      retryAfter: 5,
    });
    expect(isDown("storage")).toBe(true);
    await storing(async () => undefined);
    expect(isDown("storage")).toBe(false);
  });

  it("S3-compatible stores out of room are the storage's; other S3 errors are not", () => {
    for (const name of ["XMinioStorageFull", "XMinioAdminBucketQuotaExceeded", "QuotaExceeded"])
      expect(faultOf(s3Error(name, 400))).toBe("storage");
    expect(faultOf(s3Error("InternalError", 507))).toBe("storage");
    expect(faultOf(s3Error("NoSuchBucket", 404))).toBeNull();
    expect(faultOf(s3Error("AccessDenied", 403))).toBeNull();
  });

  it("a refused connection counts for whoever the caller was talking to, and only then", async () => {
    const client = new pg.Client({ host: "127.0.0.1", port: await freePort(), user: "nobody" });
    const error = await client.connect().catch((e: unknown) => e);
    expect((error as NodeJS.ErrnoException).code).toBe("ECONNREFUSED");
    expect(faultOf(error)).toBeNull();
    expect(faultOf(error, "database")).toBe("database");
  });

  it("Prisma's unreachable codes are the database's; its other codes and our own errors are not", () => {
    for (const code of ["P1001", "P1002", "P1008", "P1017", "P2024"])
      expect(faultOf(Object.assign(new Error(code), { code }))).toBe("database");
    expect(faultOf(Object.assign(new Error("unique"), { code: "P2002" }))).toBeNull();
    expect(faultOf(new Error("Connection terminated unexpectedly"))).toBeNull();
    expect(faultOf(new Error("Connection terminated unexpectedly"), "database")).toBe("database");
    expect(faultOf(new TypeError("x is undefined"), "database")).toBeNull();
  });
});

describe("the outage log", () => {
  afterEach(() => {
    markUp("redis");
    vi.restoreAllMocks();
  });

  it("one line when a dependency goes, one when an answer sent after that comes, with the refused requests", () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const before = Date.now() - 60_000;
    // An error that names no cause is not an outage, whoever was asked.
    const plain = new Error("connect failed");
    expect(asUnavailable(plain, "redis")).toBe(plain);
    markDown("redis", Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:6379"), { code: "ECONNREFUSED" }));
    markDown("redis", new Error("again"));
    for (let i = 0; i < 3; i++) countRefused("redis");
    expect(refusalFor(new DependencyUnavailable("redis"))).toBeInstanceOf(DependencyUnavailable);
    // An answer to a request sent before the outage began proves nothing.
    markUp("redis", before);
    markUp("redis");
    const lines = log.mock.calls.map((call) => String(call[0]));
    expect(lines).toEqual([
      "[faults] redis unavailable: connect ECONNREFUSED 127.0.0.1:6379; answering 503 until it is back",
      expect.stringMatching(/^\[faults\] redis available again after \d+\.\d s; 4 requests refused meanwhile$/),
    ]);
  });
});
