/** Invite codes for REGISTRATION=invite (docs/admin.md); a revoked code is deleted, and the audit log keeps that it existed. */
import { randomBytes } from "node:crypto";
import { env } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { recordAudit, type Actor } from "@/lib/audit/log";

/** A forgotten code should not open the instance for ever. */
export const INVITE_DEFAULT_DAYS = 7;
export const INVITE_MAX_DAYS = 365;
const DAY_MS = 86_400_000;

export type InviteStatus = "unused" | "used" | "expired";

export interface InviteRecord {
  code: string;
  url: string;
  status: InviteStatus;
  createdAt: Date;
  expiresAt: Date | null;
  usedAt: Date | null;
  createdBy: string | null;
  usedBy: string | null;
}

const inviteUrl = (code: string) => `${env().PUBLIC_URL}/register?invite=${encodeURIComponent(code)}`;

type InviteRow = {
  code: string;
  createdAt: Date;
  expiresAt: Date | null;
  usedAt: Date | null;
  usedById: string | null;
  createdBy: { displayUsername: string } | null;
  usedBy: { displayUsername: string } | null;
};

function toRecord(row: InviteRow, now: Date): InviteRecord {
  const used = row.usedAt !== null || row.usedById !== null;
  const status: InviteStatus = used ? "used" : row.expiresAt && row.expiresAt <= now ? "expired" : "unused";
  return {
    code: row.code,
    url: inviteUrl(row.code),
    status,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    usedAt: row.usedAt,
    createdBy: row.createdBy?.displayUsername ?? null,
    usedBy: row.usedBy?.displayUsername ?? null,
  };
}

const inviteSelect = {
  code: true,
  createdAt: true,
  expiresAt: true,
  usedAt: true,
  usedById: true,
  createdBy: { select: { displayUsername: true } },
  usedBy: { select: { displayUsername: true } },
} as const;

/** 120 random bits; never a leading dash, which `invite revoke --code` would read as a flag. */
export function newInviteCode(random: (size: number) => Buffer = randomBytes): string {
  for (;;) {
    const code = random(15).toString("base64url");
    if (!code.startsWith("-")) return code;
  }
}

export async function createInvite(actor: Actor, input: { days?: number } = {}, now: Date = new Date()): Promise<InviteRecord> {
  const days = input.days ?? INVITE_DEFAULT_DAYS;
  if (!Number.isInteger(days) || days < 1 || days > INVITE_MAX_DAYS) {
    throw new DomainError("invalid_request", `An invite lasts 1 to ${INVITE_MAX_DAYS} days.`);
  }
  const code = newInviteCode();
  const row = await db().invite.create({
    data: { code, createdById: actor.userId, createdAt: now, expiresAt: new Date(now.getTime() + days * DAY_MS) },
    select: inviteSelect,
  });
  await recordAudit(actor, "invite.create", { type: "invite", id: code, label: code }, { days });
  return toRecord(row, now);
}

export async function listInvites(
  input: { limit: number },
  now: Date = new Date(),
): Promise<{ invites: InviteRecord[]; hasMore: boolean }> {
  const rows = await db().invite.findMany({
    select: inviteSelect,
    orderBy: [{ createdAt: "desc" }, { code: "desc" }],
    take: input.limit + 1,
  });
  return { invites: rows.slice(0, input.limit).map((r) => toRecord(r, now)), hasMore: rows.length > input.limit };
}

/** A used code is part of an account's history: revoking it is `invalid_request`. */
export async function revokeInvite(actor: Actor, code: string): Promise<{ code: string; revoked: true }> {
  const row = await db().invite.findUnique({ where: { code }, select: { usedAt: true, usedById: true } });
  if (!row) throw new DomainError("not_found", `No invite '${code}'.`);
  if (row.usedAt || row.usedById) throw new DomainError("invalid_request", "This invite has been used; it cannot be revoked.");
  // Conditional, so a sign-up claiming the code meanwhile wins and the revoke reports it.
  const deleted = await db().invite.deleteMany({ where: { code, usedAt: null, usedById: null } });
  if (deleted.count === 0) throw new DomainError("invalid_request", "This invite has just been used; it cannot be revoked.");
  await recordAudit(actor, "invite.revoke", { type: "invite", id: code, label: code });
  return { code, revoked: true };
}
