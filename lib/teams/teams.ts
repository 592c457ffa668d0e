/**
 * Teams (an Ultra feature): a shared gallery with one team access key. The subscription
 * state is `active` or `lapsed`; a lapsed team's key is restricted (docs/http-core.md, the
 * account-state step: 403 `forbidden` on upload, add-files and convert).
 */
import { db } from "@/lib/db/client";
import { issueKey } from "@/lib/crypto/keys";
import { DomainError } from "@/lib/errors";
import { isRecordNotFound, isUniqueViolation, WRITE_TRANSACTION } from "@/lib/prisma-support";

export const TEAM_NAME_MAX_LENGTH = 50;

export type TeamStatus = "active" | "lapsed";
export type TeamRole = "owner" | "member";

export interface TeamRecord {
  id: string;
  name: string;
  ownerId: string;
  status: TeamStatus;
  keyHint: string | null;
  createdAt: Date;
}

export interface IssuedTeam {
  team: TeamRecord;
  /** The team access key: shown once, never stored. */
  key: string;
}

export interface TeamMemberRecord {
  teamId: string;
  userId: string;
  role: TeamRole;
  createdAt: Date;
}

export interface CreateTeamInput {
  ownerId: string;
  name?: string;
}

const teamSelect = { id: true, name: true, ownerId: true, status: true, keyHint: true, createdAt: true } as const;

type TeamRow = Omit<TeamRecord, "status"> & { status: string };

const toTeam = (row: TeamRow): TeamRecord => ({ ...row, status: row.status === "lapsed" ? "lapsed" : "active" });

function teamName(name: string): string {
  const value = name.trim();
  if (!value || value.length > TEAM_NAME_MAX_LENGTH) {
    throw new DomainError("invalid_request", `Team names are 1 to ${TEAM_NAME_MAX_LENGTH} characters.`);
  }
  return value;
}

export async function createTeam(input: CreateTeamInput): Promise<IssuedTeam> {
  const explicitName = input.name === undefined ? undefined : teamName(input.name);
  const owner = await db().user.findUnique({
    where: { id: input.ownerId },
    select: { id: true, plan: true, displayUsername: true },
  });
  if (!owner) throw new DomainError("not_found", `No user '${input.ownerId}'.`);
  if (owner.plan !== "ultra") throw new DomainError("plan_required", "Teams need the Ultra plan.");

  const issued = issueKey("team");
  const team = await db().$transaction(async (tx) => {
    const created = await tx.team.create({
      data: {
        name: explicitName ?? `${owner.displayUsername}'s team`,
        ownerId: owner.id,
        keyHash: issued.hash,
        keyHint: issued.hint,
      },
      select: teamSelect,
    });
    // The owner is a member too, so "the team's posts" and "the teams I belong to" are one query.
    await tx.teamMember.create({ data: { teamId: created.id, userId: owner.id, role: "owner" } });
    return created;
  }, WRITE_TRANSACTION);
  return { team: toTeam(team), key: issued.key };
}

/** Idempotent: an existing member (or the owner) gets the existing membership. */
export async function addMember(teamId: string, userId: string): Promise<TeamMemberRecord> {
  const [team, user] = await Promise.all([
    db().team.findUnique({ where: { id: teamId }, select: { id: true } }),
    db().user.findUnique({ where: { id: userId }, select: { id: true } }),
  ]);
  if (!team) throw new DomainError("not_found", `No team '${teamId}'.`);
  if (!user) throw new DomainError("not_found", `No user '${userId}'.`);
  // Insert and fall back to the existing row, rather than an upsert: Prisma runs an upsert
  // as a read-then-write transaction, which SQLite can refuse under concurrent writers.
  const member = await db()
    .teamMember.create({ data: { teamId, userId, role: "member" } })
    .catch(async (error: unknown) => {
      if (!isUniqueViolation(error)) throw error;
      return db().teamMember.findUniqueOrThrow({ where: { teamId_userId: { teamId, userId } } });
    });
  return { ...member, role: member.role === "owner" ? "owner" : "member" };
}

async function updateTeam(
  teamId: string,
  data: { status?: TeamStatus; keyHash?: string | null; keyHint?: string | null },
): Promise<TeamRecord> {
  try {
    return toTeam(await db().team.update({ where: { id: teamId }, data, select: teamSelect }));
  } catch (error) {
    if (isRecordNotFound(error)) throw new DomainError("not_found", `No team '${teamId}'.`);
    throw error;
  }
}

const setStatus = (teamId: string, status: TeamStatus): Promise<TeamRecord> => updateTeam(teamId, { status });

export const lapseTeam = (teamId: string): Promise<TeamRecord> => setStatus(teamId, "lapsed");

export const renewTeam = (teamId: string): Promise<TeamRecord> => setStatus(teamId, "active");

/** Issues a new team access key; the old one stops working at once. */
export async function regenerateTeamKey(teamId: string): Promise<IssuedTeam> {
  const issued = issueKey("team");
  const team = await updateTeam(teamId, { keyHash: issued.hash, keyHint: issued.hint });
  return { team, key: issued.key };
}

export async function findTeam(teamId: string): Promise<TeamRecord | null> {
  const row = await db().team.findUnique({ where: { id: teamId }, select: teamSelect });
  return row ? toTeam(row) : null;
}

export interface TeamMembershipRecord {
  team: TeamRecord;
  role: TeamRole;
  /** Whether the team currently has a key (the owner may have deleted it). */
  hasKey: boolean;
}

export async function listTeamsOf(userId: string): Promise<TeamMembershipRecord[]> {
  const rows = await db().teamMember.findMany({
    where: { userId },
    include: { team: { select: { ...teamSelect, keyHash: true } } },
    orderBy: [{ createdAt: "asc" }, { teamId: "asc" }],
  });
  return rows.map(({ team: { keyHash, ...team }, role }) => ({
    team: toTeam(team),
    role: role === "owner" ? "owner" : "member",
    hasKey: keyHash !== null,
  }));
}

export interface TeamMemberView extends TeamMemberRecord {
  username: string;
}

export async function listMembers(teamId: string): Promise<TeamMemberView[]> {
  const rows = await db().teamMember.findMany({
    where: { teamId },
    include: { user: { select: { displayUsername: true } } },
    orderBy: [{ createdAt: "asc" }, { userId: "asc" }],
  });
  return rows
    .map((row) => ({
      teamId: row.teamId,
      userId: row.userId,
      role: (row.role === "owner" ? "owner" : "member") as TeamRole,
      createdAt: row.createdAt,
      username: row.user.displayUsername,
    }))
    .sort((a, b) => (a.role === b.role ? 0 : a.role === "owner" ? -1 : 1));
}

/** Deletes the team access key: it stops working at once until the owner regenerates one. */
export async function deleteTeamKey(teamId: string): Promise<TeamRecord> {
  return updateTeam(teamId, { keyHash: null, keyHint: null });
}
