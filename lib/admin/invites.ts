/**
 * Invite codes for REGISTRATION=invite (docs/admin.md). Sign-up claims a code that exists,
 * is unused and has not expired (lib/auth/register.ts); these are the operator's verbs to
 * make, list and revoke them. A revoked code is deleted, so sign-up cannot claim it; the
 * audit log keeps that it existed.
 */
import { randomBytes } from "node:crypto";
import { env } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { recordAudit, type Actor } from "@/lib/audit/log";

/** Codes expire unless used: a forgotten code should not open the instance for ever. */
export const INVITE_DEFAULT_DAYS = 7;
export const INVITE_MAX_DAYS = 365;
const DAY_MS = 86_400_000;

export type InviteStatus = "unused" | "used" | "expired";

export interface InviteRecord {
  code: string;
  /** Where the invited person signs up, with the code filled in. */
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

/**
 * 120 random bits in URL-safe characters: unguessable, and pastes cleanly into the form. Never
 * one that starts with a dash: `invite revoke --code --x…` would read it as a flag (1 draw in
 * 64 starts with one; drawing again costs a few bits of 120).
 */
export function newInviteCode(random: (size: number) => Buffer = randomBytes): string {
  for (;;) {
    const code = random(15).toString("base64url");
    if (!code.startsWith("-")) return code;
  }
}

/** A new single-use code, valid for `days` (1 to 365, default 7). */
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

/** Newest first; `limit` of them, and whether more exist. */
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

/**
 * Revokes an unused (or expired) code by deleting it. A used code is part of an account's
 * history and stays: revoking it is `invalid_request`.
 */
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
