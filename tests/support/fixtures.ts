/** Accounts and keys for tests, written straight to the test database. */
import { db } from "@/lib/db/client";
import { issueKey } from "@/lib/auth/keys";
import type { Plan } from "@/lib/plans";

let counter = 0;
const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}`;

export interface TestUser {
  id: string;
  username: string;
  /** api-key of an app with gallery access. */
  apiKey: string;
  /** api-key of an app without gallery access. */
  uploadOnlyKey: string;
  /** relay-key of a session. */
  relayKey: string;
}

export async function createTestUser(options: { plan?: Plan; username?: string; suspended?: boolean } = {}): Promise<TestUser> {
  const username = options.username ?? unique("user");
  const user = await db().user.create({
    data: { username: username.toLowerCase(), displayUsername: username, plan: options.plan ?? "free", suspended: options.suspended ?? false },
  });
  const gallery = issueKey("app");
  const uploadOnly = issueKey("app");
  const relay = issueKey("relay");
  await db().app.create({ data: { userId: user.id, name: "Gallery", keyHash: gallery.hash, keyHint: gallery.hint, galleryAccess: true } });
  await db().app.create({ data: { userId: user.id, name: "Uploader", keyHash: uploadOnly.hash, keyHint: uploadOnly.hint } });
  await db().relaySession.create({ data: { userId: user.id, keyHash: relay.hash, name: "Test device" } });
  return { id: user.id, username, apiKey: gallery.key, uploadOnlyKey: uploadOnly.key, relayKey: relay.key };
}

export async function createTestTeam(ownerId: string, status: "active" | "lapsed" = "active"): Promise<{ id: string; key: string }> {
  const key = issueKey("team");
  const team = await db().team.create({ data: { name: unique("team"), ownerId, keyHash: key.hash, keyHint: key.hint, status } });
  await db().teamMember.create({ data: { teamId: team.id, userId: ownerId, role: "owner" } });
  return { id: team.id, key: key.key };
}
