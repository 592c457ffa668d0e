import { describe, expect, it } from "vitest";
import { useTestDatabase } from "../support/db";

describe("test database", () => {
  const testDb = useTestDatabase();
  it("creates and reads a user", async () => {
    const { db } = testDb();
    await db.user.create({ data: { username: "alice", displayUsername: "Alice" } });
    expect(await db.user.count()).toBe(1);
  });
});
