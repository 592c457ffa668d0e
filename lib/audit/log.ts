/** The audit log of admin actions, web and CLI (docs/admin.md): entries are only ever added. */
import { userInfo } from "node:os";
import { db } from "@/lib/db/client";
import { afterPosition, keysetPage, newestFirst, type Page, type Position } from "@/lib/db/paging";

export type AuditSource = "web" | "cli";

export interface Actor {
  source: AuditSource;
  /** The admin's user id (web); null for the CLI, which has no account. */
  userId: string | null;
  /** The admin's username (web) or the operating-system user running the CLI. */
  name: string;
}

export type AuditTargetType = "user" | "post" | "report" | "invite" | "app" | "team" | "session" | "link" | "setting";

export interface AuditTarget {
  type: AuditTargetType;
  id: string;
  /** A readable name at the time of the action (username, post code). */
  label?: string | null;
}

export interface AuditEntry {
  id: string;
  source: AuditSource;
  actorId: string | null;
  actorName: string;
  action: string;
  targetType: string;
  targetId: string;
  targetLabel: string | null;
  /** The values set by the action; never a key or a password. */
  detail: Record<string, unknown> | null;
  createdAt: Date;
}

/** The CLI's actor: the operating-system user, so a shared host's log still names a person. */
export function cliActor(): Actor {
  let name = process.env.SUDO_USER || process.env.USER || "";
  try {
    name ||= userInfo().username;
  } catch {
    // No passwd entry (some containers): the fallback below still marks the source.
  }
  return { source: "cli", userId: null, name: name || "unknown" };
}

export async function recordAudit(actor: Actor, action: string, target: AuditTarget, detail?: Record<string, unknown>): Promise<void> {
  await db().auditEntry.create({
    data: {
      source: actor.source,
      actorId: actor.userId,
      actorName: actor.name,
      action,
      targetType: target.type,
      targetId: target.id,
      targetLabel: target.label ?? null,
      detail: detail === undefined ? null : JSON.stringify(detail),
    },
  });
}

function parseDetail(text: string | null): Record<string, unknown> | null {
  if (!text) return null;
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export interface AuditQuery {
  limit: number;
  /** Continue after this entry (keyset paging, newest first). */
  after?: Position;
  target?: { type: string; id: string };
}

export async function listAudit(query: AuditQuery): Promise<Page<AuditEntry>> {
  const where = {
    ...(query.target ? { targetType: query.target.type, targetId: query.target.id } : {}),
    ...afterPosition("createdAt", query.after),
  };
  const page = await keysetPage(
    query.limit,
    (take) => db().auditEntry.findMany({ where, orderBy: newestFirst("createdAt"), take }),
    (row) => ({ t: row.createdAt.getTime(), id: row.id }),
  );
  return {
    ...page,
    items: page.items.map((row) => ({
      ...row,
      source: row.source === "web" ? "web" : "cli",
      detail: parseDetail(row.detail),
    })),
  };
}
