/** Account administration for the admin CLI and the dashboard (docs/admin.md); failures are DomainErrors. */
import { db } from "@/lib/db/client";
import { hashPassword } from "@/lib/crypto/password";
import { DomainError } from "@/lib/errors";
import { isRecordNotFound, isUniqueViolation } from "@/lib/prisma-support";
import { isPlan, type Plan } from "@/lib/plans";
import { nextPriorityReset } from "@/lib/usage/priority";

export interface Account {
  id: string;
  /** Lower-case: the unique form. */
  username: string;
  displayUsername: string;
  email: string | null;
  plan: Plan;
  suspended: boolean;
  suspendedAt: Date | null;
  /** Null: the plan default. */
  quotaOverride: bigint | null;
  priorityMinutes: number | null;
  createdAt: Date;
}

export interface CreateUserInput {
  username: string;
  plan?: Plan;
  password?: string;
  email?: string;
}

const accountSelect = {
  id: true,
  username: true,
  displayUsername: true,
  email: true,
  plan: true,
  suspended: true,
  suspendedAt: true,
  quotaOverride: true,
  priorityMinutes: true,
  createdAt: true,
} as const;

type AccountRow = Omit<Account, "plan"> & { plan: string };

const toAccount = (row: AccountRow): Account => ({ ...row, plan: isPlan(row.plan) ? row.plan : "free" });

export const USERNAME_PATTERN = /^[A-Za-z0-9_.-]{2,32}$/;
export const PASSWORD_MIN_LENGTH = 8;
/** scrypt runs on every sign-in; an unbounded input would be a cheap way to burn CPU. */
export const PASSWORD_MAX_LENGTH = 1024;
/**
 * A bare address only (issue 39 §4): a display name such as `"Support"<bob@example.com>` would
 * slip past the uniqueness of `bob@example.com`. International domains come in punycode.
 */
const EMAIL_LOCAL = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const EMAIL_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

function isBareAddress(value: string): boolean {
  const at = value.lastIndexOf("@");
  if (at <= 0 || at !== value.indexOf("@")) return false;
  const local = value.slice(0, at);
  const labels = value.slice(at + 1).split(".");
  if (local.length > 64 || !EMAIL_LOCAL.test(local) || labels.length < 2) return false;
  return labels.every((label) => EMAIL_LABEL.test(label)) && !/^\d+$/.test(labels[labels.length - 1]);
}

export function usernameProblem(username: string): string | null {
  if (!USERNAME_PATTERN.test(username)) {
    return "Usernames are 2 to 32 characters of letters, digits, '_', '.' and '-'.";
  }
  // "." and ".." would be path segments in /users/{id}; one letter or digit avoids that.
  if (!/[A-Za-z0-9]/.test(username)) return "A username needs at least one letter or digit.";
  return null;
}

export function normaliseEmail(email: string): string {
  const value = email.trim().toLowerCase();
  if (value.length > 254 || !isBareAddress(value)) {
    throw new DomainError("invalid_request", `'${email}' is not an email address.`);
  }
  return value;
}

/** Exported for changes and resets. */
export function checkPassword(password: string): void {
  if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
    throw new DomainError("invalid_request", `Passwords are ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long.`);
  }
}

export async function createUser(input: CreateUserInput): Promise<Account> {
  const problem = usernameProblem(input.username);
  if (problem) throw new DomainError("invalid_request", problem);
  const plan = input.plan ?? "free";
  if (!isPlan(plan)) throw new DomainError("invalid_request", `Unknown plan '${String(plan)}'.`);
  const email = input.email === undefined ? null : normaliseEmail(input.email);
  if (input.password !== undefined) checkPassword(input.password);

  const username = input.username.toLowerCase();
  // Checked first for a precise message; the unique indexes below still decide races.
  const taken = await db().user.findFirst({
    where: { OR: [{ username }, ...(email ? [{ email }] : [])] },
    select: { username: true },
  });
  if (taken) {
    throw new DomainError(
      "invalid_request",
      taken.username === username ? `The username '${input.username}' is taken.` : "That email address is already in use.",
    );
  }

  const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
  try {
    const row = await db().user.create({
      data: { username, displayUsername: input.username, email, passwordHash, plan },
      select: accountSelect,
    });
    return toAccount(row);
  } catch (error) {
    if (isUniqueViolation(error)) throw new DomainError("invalid_request", "That username or email address is already in use.");
    throw error;
  }
}

export async function findUserByRef(ref: string): Promise<Account | null> {
  const value = ref.trim();
  if (!value) return null;
  const row =
    (await db().user.findUnique({ where: { id: value }, select: accountSelect })) ??
    (await db().user.findUnique({ where: { username: value.toLowerCase() }, select: accountSelect }));
  return row ? toAccount(row) : null;
}

export async function requireUser(ref: string): Promise<Account> {
  const user = await findUserByRef(ref);
  if (!user) throw new DomainError("not_found", `No user '${ref}'.`);
  return user;
}

type AccountChange = {
  plan?: Plan;
  suspended?: boolean;
  suspendedAt?: Date | null;
  quotaOverride?: bigint | null;
  priorityMinutes?: number;
  priorityResetAt?: Date;
};

async function updateAccount(userId: string, data: AccountChange): Promise<Account> {
  try {
    return toAccount(await db().user.update({ where: { id: userId }, data, select: accountSelect }));
  } catch (error) {
    if (isRecordNotFound(error)) throw new DomainError("not_found", `No user '${userId}'.`);
    throw error;
  }
}

/** Teams the user owns keep their own subscription state, so a plan change never silently locks a team out. */
export async function setPlan(userId: string, plan: Plan): Promise<Account> {
  if (!isPlan(plan)) throw new DomainError("invalid_request", `Unknown plan '${String(plan)}'.`);
  return updateAccount(userId, { plan });
}

/** Idempotent: suspending again keeps the original suspendedAt. */
export async function suspendUser(userId: string, now: Date = new Date()): Promise<Account> {
  const user = await db().user.findUnique({ where: { id: userId }, select: accountSelect });
  if (!user) throw new DomainError("not_found", `No user '${userId}'.`);
  if (user.suspended) return toAccount(user);
  return updateAccount(userId, { suspended: true, suspendedAt: now });
}

export async function unsuspendUser(userId: string): Promise<Account> {
  return updateAccount(userId, { suspended: false, suspendedAt: null });
}

/** Null returns to the plan default. */
export async function setQuotaOverride(userId: string, bytes: number | bigint | null): Promise<Account> {
  if (bytes !== null) {
    const valid = typeof bytes === "bigint" ? bytes >= 0n : Number.isSafeInteger(bytes) && bytes >= 0;
    if (!valid) throw new DomainError("invalid_request", "A quota is a whole, non-negative number of bytes.");
  }
  return updateAccount(userId, { quotaOverride: bytes === null ? null : BigInt(bytes) });
}

export async function setPriorityMinutes(userId: string, minutes: number): Promise<Account> {
  // The column is a 32-bit Int on both providers.
  if (!Number.isSafeInteger(minutes) || minutes < 0 || minutes > 2_147_483_647) {
    throw new DomainError("invalid_request", "Priority minutes are a whole number from 0 to 2147483647.");
  }
  // Stamped for this month: the override lasts until the monthly refill (docs/priority-delivery.md).
  return updateAccount(userId, { priorityMinutes: minutes, priorityResetAt: nextPriorityReset() });
}
