/** Acting on reports (docs/reports.md): resolving only records the decision, so each action is one deliberate command. */
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { isRecordNotFound } from "@/lib/prisma-support";
import type { ReportTargetType } from "./submit";

export const REPORT_STATUSES = ["open", "resolved", "dismissed"] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];

export interface ReportUser {
  id: string;
  username: string;
  suspended: boolean;
}

export type ReportedTarget =
  | { type: "post"; code: string; title: string | null; moderated: boolean; author: ReportUser | null }
  | { type: "user"; user: ReportUser }
  | { type: "comment"; id: string; body: string; postCode: string; author: ReportUser };

export interface ReportRecord {
  id: string;
  status: ReportStatus;
  reason: string | null;
  ip: string | null;
  createdAt: Date;
  reporter: ReportUser;
  target: ReportedTarget;
}

export interface ReportList {
  reports: ReportRecord[];
  hasMore: boolean;
}

const userSelect = { id: true, displayUsername: true, suspended: true } as const;

const reportInclude = {
  reporter: { select: userSelect },
  post: { select: { code: true, title: true, moderated: true, user: { select: userSelect } } },
  targetUser: { select: userSelect },
  comment: { select: { id: true, body: true, post: { select: { code: true } }, user: { select: userSelect } } },
} as const;

type UserRow = { id: string; displayUsername: string; suspended: boolean };

const toUser = (row: UserRow): ReportUser => ({ id: row.id, username: row.displayUsername, suspended: row.suspended });

const toStatus = (status: string): ReportStatus =>
  (REPORT_STATUSES as readonly string[]).includes(status) ? (status as ReportStatus) : "open";

/** `openOnly` is the moderation queue. */
export async function listReports(options: { openOnly: boolean; limit: number }): Promise<ReportList> {
  const rows = await db().report.findMany({
    where: options.openOnly ? { status: "open" } : {},
    include: reportInclude,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    // One extra row tells whether more exist without counting them all.
    take: options.limit + 1,
  });
  const reports = rows.slice(0, options.limit).map((row): ReportRecord => {
    let target: ReportedTarget;
    const type = row.targetType as ReportTargetType;
    // The target columns cascade on delete, so a stored report always has its row.
    if (type === "post" && row.post) {
      const { code, title, moderated, user } = row.post;
      target = { type, code, title, moderated, author: user ? toUser(user) : null };
    } else if (type === "comment" && row.comment) {
      const { id, body, post, user } = row.comment;
      target = { type, id, body, postCode: post.code, author: toUser(user) };
    } else if (type === "user" && row.targetUser) {
      target = { type, user: toUser(row.targetUser) };
    } else {
      throw new Error(`Report ${row.id} has target type '${row.targetType}' without its row.`);
    }
    return {
      id: row.id,
      status: toStatus(row.status),
      reason: row.reason,
      ip: row.ip,
      createdAt: row.createdAt,
      reporter: toUser(row.reporter),
      target,
    };
  });
  return { reports, hasMore: rows.length > options.limit };
}

/** Deciding again overwrites the earlier decision, so a mistaken dismissal can be corrected. */
export async function resolveReport(id: string, outcome: Exclude<ReportStatus, "open">): Promise<{ id: string; status: ReportStatus }> {
  try {
    const row = await db().report.update({ where: { id }, data: { status: outcome }, select: { id: true, status: true } });
    return { id: row.id, status: toStatus(row.status) };
  } catch (error) {
    if (isRecordNotFound(error)) throw new DomainError("not_found", `No report '${id}'.`);
    throw error;
  }
}
