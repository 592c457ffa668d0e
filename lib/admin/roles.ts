/** User roles (docs/admin.md), read on every admin request so a demotion takes effect at once. */
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { requireUser } from "@/lib/users/accounts";
import { recordAudit, type Actor } from "@/lib/audit/log";

export const ROLES = ["user", "admin"] as const;
export type Role = (typeof ROLES)[number];

export const isRole = (value: string): value is Role => (ROLES as readonly string[]).includes(value);

/** Null for an unknown id; anything but "admin" is a user. */
export async function roleOf(userId: string): Promise<Role | null> {
  const row = await db().user.findUnique({ where: { id: userId }, select: { role: true } });
  if (!row) return null;
  return row.role === "admin" ? "admin" : "user";
}

/** Not suspended either: a suspended admin's sessions still exist, and suspension must take every power away. */
export async function isActiveAdmin(userId: string): Promise<boolean> {
  const row = await db().user.findUnique({ where: { id: userId }, select: { role: true, suspended: true } });
  return row?.role === "admin" && !row.suspended;
}

/** Not one's own role on the web, so nobody demotes themselves by a slip; the CLI can always repair roles. */
export async function setRole(actor: Actor, userRef: string, role: Role): Promise<{ id: string; username: string; role: Role }> {
  if (!isRole(role)) throw new DomainError("invalid_request", `Unknown role '${String(role)}'.`);
  const user = await requireUser(userRef);
  if (actor.userId === user.id) throw new DomainError("forbidden", "You cannot change your own role.");
  await db().user.update({ where: { id: user.id }, data: { role } });
  await recordAudit(actor, "user.role", { type: "user", id: user.id, label: user.displayUsername }, { role });
  return { id: user.id, username: user.displayUsername, role };
}
