import { describe, expect, it } from "vitest";
import { useTestDatabase } from "../support/db";
import { hashKey } from "@/lib/crypto/keys";
import { createApp, listApps, MAX_APPS_PER_USER, regenerateApp, revokeApp, verifyAppKey } from "@/lib/apps/apps";
import { createUser } from "@/lib/users/accounts";
import { expectDomainError, expectWellFormedKey, rowText } from "./helpers";

describe("apps", () => {
  const testDb = useTestDatabase();
  let userCount = 0;
  const newUser = () => createUser({ username: `appuser${++userCount}` });

  it("creates an app with a working key, storing only its hash and a short hint", async () => {
    const user = await newUser();
    const { app, key } = await createApp({ userId: user.id, name: "  Laptop  ", galleryAccess: true });
    expect(app).toMatchObject({ userId: user.id, name: "Laptop", galleryAccess: true, revokedAt: null });
    expectWellFormedKey(key);

    const row = await testDb().db.app.findUniqueOrThrow({ where: { id: app.id } });
    expect(row.keyHash).toBe(hashKey(key));
    expect(key.startsWith(row.keyHint ?? "-")).toBe(true);
    expect(row.keyHint!.length).toBeLessThan(key.length / 2);
    expect(rowText(row)).not.toContain(key);
    expect(app).not.toHaveProperty("keyHash");
  });

  it("names apps App 1, App 2, … and leaves gallery access off by default", async () => {
    const user = await newUser();
    const first = await createApp({ userId: user.id });
    const second = await createApp({ userId: user.id });
    expect([first.app.name, second.app.name]).toEqual(["App 1", "App 2"]);
    expect(first.app.galleryAccess).toBe(false);
    expect(first.key).not.toBe(second.key);
  });

  it("refuses empty or over-long names and unknown users", async () => {
    const user = await newUser();
    await expectDomainError(createApp({ userId: user.id, name: "   " }), "invalid_request");
    await expectDomainError(createApp({ userId: user.id, name: "x".repeat(51) }), "invalid_request");
    await expectDomainError(createApp({ userId: "missing-user" }), "not_found");
  });

  it(`allows ${MAX_APPS_PER_USER} working apps; the next is forbidden until one is revoked`, async () => {
    const user = await newUser();
    const apps = [];
    for (let i = 0; i < MAX_APPS_PER_USER; i++) apps.push(await createApp({ userId: user.id }));
    const refused = await expectDomainError(createApp({ userId: user.id }), "forbidden");
    expect(refused.message).toMatch(/at most 10 apps/);

    await revokeApp(apps[0].app.id);
    const replacement = await createApp({ userId: user.id });
    // Default names count every app ever created, so none repeats.
    expect(replacement.app.name).toBe(`App ${MAX_APPS_PER_USER + 1}`);

    // A revoked app coming back to life counts again, so it is refused while 10 are working.
    await expectDomainError(regenerateApp(apps[0].app.id), "forbidden");
    expect(await listApps(user.id)).toHaveLength(MAX_APPS_PER_USER + 1);
  });

  it("does not let concurrent creations exceed the limit", async () => {
    const user = await newUser();
    const results = await Promise.allSettled(Array.from({ length: MAX_APPS_PER_USER + 3 }, () => createApp({ userId: user.id })));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(MAX_APPS_PER_USER);
    expect(await testDb().db.app.count({ where: { userId: user.id, revokedAt: null } })).toBe(MAX_APPS_PER_USER);
  });

  it("revoke clears the hash and is idempotent", async () => {
    const user = await newUser();
    const { app } = await createApp({ userId: user.id });
    const revoked = await revokeApp(app.id);
    expect(revoked.revokedAt).toBeInstanceOf(Date);
    const row = await testDb().db.app.findUniqueOrThrow({ where: { id: app.id } });
    expect(row.keyHash).toBeNull();
    const again = await revokeApp(app.id);
    expect(again.revokedAt).toEqual(revoked.revokedAt);
    await expectDomainError(revokeApp("missing-app"), "not_found");
  });

  it("regenerate replaces the hash: the old key stops matching, the new one matches", async () => {
    const user = await newUser();
    const { app, key: oldKey } = await createApp({ userId: user.id, galleryAccess: true });
    const { app: after, key: newKey } = await regenerateApp(app.id);
    expectWellFormedKey(newKey);
    expect(newKey).not.toBe(oldKey);
    expect(after).toMatchObject({ id: app.id, name: app.name, galleryAccess: true });
    expect(await testDb().db.app.count({ where: { keyHash: hashKey(oldKey) } })).toBe(0);
    expect((await testDb().db.app.findUniqueOrThrow({ where: { id: app.id } })).keyHash).toBe(hashKey(newKey));
    await expectDomainError(verifyAppKey(app.id, oldKey), "invalid_request");
    await expect(verifyAppKey(app.id, newKey)).resolves.toMatchObject({ id: app.id });
  });

  it("regenerating a revoked app makes it work again", async () => {
    const user = await newUser();
    const { app } = await createApp({ userId: user.id });
    await revokeApp(app.id);
    await expectDomainError(verifyAppKey(app.id, "mha_anything"), "invalid_request");
    const { app: revived, key } = await regenerateApp(app.id);
    expect(revived.revokedAt).toBeNull();
    await expect(verifyAppKey(app.id, key)).resolves.toMatchObject({ id: app.id });
  });

  it("scopes revoke and regenerate to the owner when asked", async () => {
    const owner = await newUser();
    const other = await newUser();
    const { app } = await createApp({ userId: owner.id });
    await expectDomainError(revokeApp(app.id, { userId: other.id }), "not_found");
    await expectDomainError(regenerateApp(app.id, { userId: other.id }), "not_found");
    await expect(revokeApp(app.id, { userId: owner.id })).resolves.toMatchObject({ id: app.id });
  });

  it("lists a user's apps oldest first, revoked ones included, without hashes", async () => {
    const user = await newUser();
    const a = await createApp({ userId: user.id, name: "first" });
    const b = await createApp({ userId: user.id, name: "second" });
    await revokeApp(a.app.id);
    const apps = await listApps(user.id);
    expect(apps.map((x) => x.name)).toEqual(["first", "second"]);
    expect(apps[0].revokedAt).toBeInstanceOf(Date);
    expect(apps.every((x) => !("keyHash" in x))).toBe(true);
    expect(b.app.revokedAt).toBeNull();
  });

  it("verifyAppKey rejects another app's key and unknown apps", async () => {
    const user = await newUser();
    const one = await createApp({ userId: user.id });
    const two = await createApp({ userId: user.id });
    await expectDomainError(verifyAppKey(one.app.id, two.key), "invalid_request");
    await expectDomainError(verifyAppKey("missing-app", one.key), "not_found");
  });
});
