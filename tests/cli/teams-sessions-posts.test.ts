import { describe, expect, it } from "vitest";
import { useTestDatabase } from "../support/db";
import { hashKey } from "@/lib/crypto/keys";
import { moderatePost, restrictPost, unmoderatePost } from "@/lib/posts/moderation";
import { createSession } from "@/lib/sessions/sessions";
import { addMember, createTeam, lapseTeam, regenerateTeamKey, renewTeam } from "@/lib/teams/teams";
import { createUser } from "@/lib/users/accounts";
import { expectDomainError, expectWellFormedKey, rowText } from "./helpers";

describe("sessions, teams and post moderation", () => {
  const testDb = useTestDatabase();
  let userCount = 0;
  const newUser = (plan: "free" | "plus" | "ultra" = "free") => createUser({ username: `member${++userCount}`, plan });

  describe("createSession", () => {
    it("issues a relay key, storing only its hash", async () => {
      const user = await newUser();
      const session = await createSession({ userId: user.id, name: "Phone", userAgent: "Relay/1.0", ip: "203.0.113.9" });
      expectWellFormedKey(session.key);
      const row = await testDb().db.relaySession.findUniqueOrThrow({ where: { id: session.id } });
      expect(row).toMatchObject({ userId: user.id, name: "Phone", userAgent: "Relay/1.0", ip: "203.0.113.9" });
      expect(row.keyHash).toBe(hashKey(session.key));
      expect(rowText(row)).not.toContain(session.key);
    });

    it("refuses unknown users and bad names", async () => {
      const user = await newUser();
      await expectDomainError(createSession({ userId: "missing-user" }), "not_found");
      await expectDomainError(createSession({ userId: user.id, name: " " }), "invalid_request");
    });
  });

  describe("teams", () => {
    it("needs an Ultra owner", async () => {
      const plus = await newUser("plus");
      await expectDomainError(createTeam({ ownerId: plus.id }), "plan_required");
      await expectDomainError(createTeam({ ownerId: "missing-user" }), "not_found");
      expect(await testDb().db.team.count({ where: { ownerId: plus.id } })).toBe(0);
    });

    it("creates an active team with a hashed key and the owner as a member", async () => {
      const owner = await newUser("ultra");
      const { team, key } = await createTeam({ ownerId: owner.id });
      expectWellFormedKey(key);
      expect(team).toMatchObject({ ownerId: owner.id, status: "active", name: `${owner.displayUsername}'s team` });
      const row = await testDb().db.team.findUniqueOrThrow({ where: { id: team.id }, include: { members: true } });
      expect(row.keyHash).toBe(hashKey(key));
      expect(rowText(row)).not.toContain(key);
      expect(row.members).toEqual([expect.objectContaining({ userId: owner.id, role: "owner" })]);
    });

    it("adds members idempotently, keeping the owner's role", async () => {
      const owner = await newUser("ultra");
      const member = await newUser();
      const { team } = await createTeam({ ownerId: owner.id, name: "Studio" });
      expect(team.name).toBe("Studio");
      expect(await addMember(team.id, member.id)).toMatchObject({ teamId: team.id, userId: member.id, role: "member" });
      expect(await addMember(team.id, member.id)).toMatchObject({ role: "member" });
      expect(await addMember(team.id, owner.id)).toMatchObject({ role: "owner" });
      expect(await testDb().db.teamMember.count({ where: { teamId: team.id } })).toBe(2);
      await expectDomainError(addMember("missing-team", member.id), "not_found");
      await expectDomainError(addMember(team.id, "missing-user"), "not_found");
    });

    it("lapses and renews; regenerating the key invalidates the old one", async () => {
      const owner = await newUser("ultra");
      const { team, key } = await createTeam({ ownerId: owner.id });
      expect((await lapseTeam(team.id)).status).toBe("lapsed");
      expect((await renewTeam(team.id)).status).toBe("active");
      await expectDomainError(lapseTeam("missing-team"), "not_found");

      const { key: newKey } = await regenerateTeamKey(team.id);
      expect(newKey).not.toBe(key);
      expect(await testDb().db.team.count({ where: { keyHash: hashKey(key) } })).toBe(0);
      expect((await testDb().db.team.findUniqueOrThrow({ where: { id: team.id } })).keyHash).toBe(hashKey(newKey));
    });

    it("refuses an empty team name", async () => {
      const owner = await newUser("ultra");
      await expectDomainError(createTeam({ ownerId: owner.id, name: "" }), "invalid_request");
    });
  });

  describe("post moderation", () => {
    const newPost = async (code: string, privacy: "public" | "unlisted" | "private") => {
      const user = await newUser();
      return testDb().db.post.create({ data: { code, userId: user.id, privacy } });
    };

    it("moderates and unmoderates", async () => {
      await newPost("modA1", "public");
      expect(await moderatePost("modA1")).toMatchObject({ code: "modA1", moderated: true });
      expect(await unmoderatePost("modA1")).toMatchObject({ code: "modA1", moderated: false });
      await expectDomainError(moderatePost("nope"), "not_found");
      await expectDomainError(unmoderatePost("nope"), "not_found");
    });

    it("restricting a public post makes it unlisted; other privacies stay", async () => {
      await newPost("resPub", "public");
      await newPost("resPriv", "private");
      await newPost("resUnl", "unlisted");
      expect(await restrictPost("resPub")).toEqual({ code: "resPub", restricted: true, moderated: false, privacy: "unlisted" });
      expect(await restrictPost("resPriv")).toMatchObject({ restricted: true, privacy: "private" });
      expect(await restrictPost("resUnl")).toMatchObject({ restricted: true, privacy: "unlisted" });
      await expectDomainError(restrictPost("nope"), "not_found");
    });
  });
});
