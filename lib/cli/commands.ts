/** The admin CLI's commands (docs/admin-cli.md): flags as zod schemas, the domain modules do the work. */
import { z } from "zod";
import { cliActor, listAudit, recordAudit, type AuditEntry, type AuditTarget } from "@/lib/audit/log";
import { createInvite, INVITE_MAX_DAYS, listInvites, revokeInvite, type InviteRecord } from "@/lib/admin/invites";
import { quarantinePost, releasePost } from "@/lib/admin/posts";
import { decideReport } from "@/lib/admin/reports";
import { ROLES, setRole } from "@/lib/admin/roles";
import {
  changePlan,
  changePriorityMinutes,
  changeQuota,
  deleteUserAccount,
  issueUserResetLink,
  suspendAccount,
  unsuspendAccount,
} from "@/lib/admin/users";
import { writeAccountExport } from "@/lib/accounts/export-file";
import { createApp, regenerateApp, revokeApp, verifyAppKey } from "@/lib/apps/apps";
import { resetTwoFactor } from "@/lib/auth/factors/two-factor";
import { chatterinoConfig, flameshotScript, sharexConfig, sharexLinksConfig } from "@/lib/apps/client-config";
import { PLANS, parseBytes } from "@/lib/plans";
import { restrictPost } from "@/lib/posts/moderation";
import { listReports, type ReportRecord, type ReportUser } from "@/lib/reports/review";
import { createSession } from "@/lib/sessions/sessions";
import { addMember, createTeam, lapseTeam, renewTeam } from "@/lib/teams/teams";
import { importDirectory } from "@/lib/uploads/import-dir";
import { createUser, requireUser } from "@/lib/users/accounts";
import { PRIVACIES } from "@/lib/posts/privacy";
import { backupCommands } from "./backup-commands";
import { command, type Command, type CommandOutput } from "./command";
import { importCommands } from "./import-commands";
import { mediaCommands } from "./media-commands";
import { settingsCommands } from "./settings-commands";

const flagError =
  (problem: string) =>
  (issue: { input?: unknown }): string =>
    issue.input === undefined ? "is required" : problem;

/** Kept exactly as given (passwords). */
const rawValue = (what: string) => z.string({ error: flagError(`needs a value (${what})`) }).min(1, `needs a value (${what})`);
const value = (what: string) =>
  z
    .string({ error: flagError(`needs a value (${what})`) })
    .trim()
    .min(1, `needs a value (${what})`);

const userRef = value("a username or user id");
const id = (what: string) => value(`${what} id`);
const oneOf = <const T extends string>(values: readonly T[]) =>
  z.enum(values as readonly [T, ...T[]], { error: flagError(`must be one of ${values.join(", ")}`) });
const plan = oneOf(PLANS);

const toggle = z
  .union([z.literal(true), z.enum(["true", "false"])], { error: "takes no value, or true or false" })
  .optional()
  .transform((v) => v === true || v === "true");

const wholeNumber = z
  .string({ error: flagError("needs a whole number") })
  .trim()
  .regex(/^\d+$/, "must be a whole number, 0 or more")
  .transform(Number)
  .refine(Number.isSafeInteger, "is too large");

const bytes = z.string({ error: flagError("needs a number of bytes") }).transform((text, ctx) => {
  const parsed = parseBytes(text);
  if (parsed === null || !Number.isSafeInteger(parsed)) {
    ctx.addIssue({ code: "custom", message: "must be a number of bytes, such as 1073741824 or 10GB" });
    return z.NEVER;
  }
  return parsed;
});

/** So one answer stays one readable line. */
const REPORT_LIST_DEFAULT = 100;
const reportLimit = wholeNumber.refine((n) => n >= 1 && n <= 1000, "must be from 1 to 1000").optional();

const listLimit = reportLimit;
const inviteDays = wholeNumber.refine((n) => n >= 1 && n <= INVITE_MAX_DAYS, `must be from 1 to ${INVITE_MAX_DAYS}`).optional();
const role = oneOf(ROLES);

/** Changes are audited (docs/admin.md): lib/admin records the levers the console shares, the others record here. */
const audit = (action: string, target: AuditTarget, detail?: Record<string, unknown>) => recordAudit(cliActor(), action, target, detail);

const CLIENTS = ["sharex", "sharex-links", "chatterino", "flameshot"] as const;
const client = oneOf(CLIENTS);

export type { Command, CommandOutput } from "./command";

export const COMMANDS: readonly Command[] = [
  command(
    "user create",
    "--username U [--plan free|plus|ultra] [--password P] [--email E]",
    {
      username: value("the username"),
      plan: plan.optional(),
      password: rawValue("the password").optional(),
      email: value("an email address").optional(),
    },
    async (flags) => {
      const user = await createUser(flags);
      await audit("user.create", { type: "user", id: user.id, label: user.displayUsername }, { plan: user.plan });
      return { id: user.id, username: user.displayUsername, plan: user.plan };
    },
  ),
  command("user plan", "--user U --plan free|plus|ultra", { user: userRef, plan }, async (flags) => {
    const user = await changePlan(cliActor(), flags.user, flags.plan);
    return { id: user.id, plan: user.plan };
  }),
  command("user suspend", "--user U", { user: userRef }, async (flags) => {
    const user = await suspendAccount(cliActor(), flags.user);
    return { id: user.id, suspended: user.suspended };
  }),
  command("user unsuspend", "--user U", { user: userRef }, async (flags) => {
    const user = await unsuspendAccount(cliActor(), flags.user);
    return { id: user.id, suspended: user.suspended };
  }),
  command("user quota", "--user U --bytes N", { user: userRef, bytes }, async (flags) => {
    const user = await changeQuota(cliActor(), flags.user, flags.bytes);
    return { id: user.id, quota: Number(user.quotaOverride) };
  }),
  command("user priority", "--user U --minutes N", { user: userRef, minutes: wholeNumber }, async (flags) => {
    const user = await changePriorityMinutes(cliActor(), flags.user, flags.minutes);
    return { id: user.id, priority_minutes: user.priorityMinutes };
  }),
  command("user two-factor-reset", "--user U", { user: userRef }, async (flags) => {
    // Lost phone and lost recovery codes (docs/two-factor.md): the password alone signs in again.
    const user = await requireUser(flags.user);
    const removed = await resetTwoFactor(user.id);
    await audit("user.two_factor_reset", { type: "user", id: user.id, label: user.displayUsername }, { removed });
    return { id: user.id, two_factor: false };
  }),
  command("user reset-link", "--user U", { user: userRef }, async (flags) => {
    // A forgotten password without mail (docs/web-auth.md, "Passwords"): hand the link over yourself.
    const { user, url, expiresAt } = await issueUserResetLink(cliActor(), flags.user);
    return { id: user.id, username: user.displayUsername, url, expires_at: expiresAt.toISOString() };
  }),
  command("user delete", "--user U", { user: userRef }, async (flags) => {
    // Everything of the account goes, teams it owns included (docs/account-deletion.md); audited first.
    const done = await deleteUserAccount(cliActor(), flags.user);
    return { id: done.id, username: done.username, deleted: true, posts: done.posts, teams: done.teams };
  }),
  command("user export", "--user U --out FILE", { user: userRef, out: value("a file to write the zip to") }, async (flags) => {
    // The zip of "Download my data", written as it is made (never held in memory).
    const user = await requireUser(flags.user);
    const written = await writeAccountExport(user.id, flags.out);
    await audit("user.export", { type: "user", id: user.id, label: user.displayUsername }, { out: written.out, bytes: written.bytes });
    return { id: user.id, username: user.displayUsername, out: written.out, bytes: written.bytes };
  }),
  command("user role", "--user U --role user|admin", { user: userRef, role }, async (flags) => {
    const user = await setRole(cliActor(), flags.user, flags.role);
    return { id: user.id, role: user.role };
  }),
  command(
    "app create",
    "--user U [--name N] [--gallery-access]",
    { user: userRef, name: value("the app name").optional(), "gallery-access": toggle },
    async (flags) => {
      const owner = await requireUser(flags.user);
      const { app, key } = await createApp({ userId: owner.id, name: flags.name, galleryAccess: flags["gallery-access"] });
      await audit(
        "app.create",
        { type: "app", id: app.id, label: app.name },
        { user: owner.displayUsername, gallery_access: app.galleryAccess },
      );
      return { id: app.id, name: app.name, key, gallery_access: app.galleryAccess };
    },
  ),
  command("app revoke", "--app ID", { app: id("an app") }, async (flags) => {
    const app = await revokeApp(flags.app);
    await audit("app.revoke", { type: "app", id: app.id, label: app.name });
    return { id: app.id, key: null };
  }),
  command("app regenerate", "--app ID", { app: id("an app") }, async (flags) => {
    const { app, key } = await regenerateApp(flags.app);
    await audit("app.regenerate", { type: "app", id: app.id, label: app.name });
    return { id: app.id, key };
  }),
  command(
    "app config",
    "--app ID --key KEY --client sharex|sharex-links|chatterino|flameshot",
    { app: id("an app"), key: value("the app's api-key"), client },
    async (flags) => {
      // Only the key's hash is stored, so the operator hands the key back; it must be the app's current one.
      const app = await verifyAppKey(flags.app, flags.key);
      const options = { appName: app.name };
      if (flags.client === "sharex") return { ...sharexConfig(flags.key, options) };
      if (flags.client === "sharex-links") return { ...sharexLinksConfig(flags.key, options) };
      if (flags.client === "chatterino") return { ...chatterinoConfig(flags.key, options) };
      return { ...flameshotScript(flags.key, options) };
    },
  ),
  command("session create", "--user U [--name N]", { user: userRef, name: value("a session name").optional() }, async (flags) => {
    const user = await requireUser(flags.user);
    // Named after its origin, so the owner recognises it in their session list.
    const session = await createSession({ userId: user.id, name: flags.name ?? "Admin CLI" });
    await audit("session.create", { type: "session", id: session.id }, { user: user.displayUsername });
    return { id: session.id, key: session.key };
  }),
  command("team create", "--owner U [--name N]", { owner: userRef, name: value("the team name").optional() }, async (flags) => {
    const owner = await requireUser(flags.owner);
    const { team, key } = await createTeam({ ownerId: owner.id, name: flags.name });
    await audit("team.create", { type: "team", id: team.id, label: team.name }, { owner: owner.displayUsername });
    return { id: team.id, name: team.name, key };
  }),
  command("team member add", "--team ID --user U", { team: id("a team"), user: userRef }, async (flags) => {
    const user = await requireUser(flags.user);
    const member = await addMember(flags.team, user.id);
    await audit("team.member.add", { type: "team", id: member.teamId }, { user: user.displayUsername });
    return { team_id: member.teamId, user_id: member.userId };
  }),
  command("team lapse", "--team ID", { team: id("a team") }, async (flags) => {
    const team = await lapseTeam(flags.team);
    await audit("team.lapse", { type: "team", id: team.id, label: team.name });
    return { id: team.id, status: team.status };
  }),
  command("team renew", "--team ID", { team: id("a team") }, async (flags) => {
    const team = await renewTeam(flags.team);
    await audit("team.renew", { type: "team", id: team.id, label: team.name });
    return { id: team.id, status: team.status };
  }),
  command("post moderate", "--code C", { code: value("a post code") }, async (flags) => {
    const post = await quarantinePost(cliActor(), flags.code);
    return { code: post.code, moderated: post.moderated };
  }),
  command("post unmoderate", "--code C", { code: value("a post code") }, async (flags) => {
    const post = await releasePost(cliActor(), flags.code);
    return { code: post.code, moderated: post.moderated };
  }),
  command("post restrict", "--code C", { code: value("a post code") }, async (flags) => {
    const post = await restrictPost(flags.code);
    await audit("post.restrict", { type: "post", id: post.code, label: post.code });
    return { code: post.code, restricted: post.restricted };
  }),
  command("report list", "[--open] [--limit N]", { open: toggle, limit: reportLimit }, async (flags) => {
    const { reports, hasMore } = await listReports({ openOnly: flags.open, limit: flags.limit ?? REPORT_LIST_DEFAULT });
    return { reports: reports.map(reportJson), has_more: hasMore };
  }),
  command("report resolve", "--id ID [--dismiss]", { id: id("a report"), dismiss: toggle }, async (flags) => {
    const report = await decideReport(cliActor(), flags.id, flags.dismiss ? "dismissed" : "resolved");
    return { id: report.id, status: report.status };
  }),
  ...backupCommands(),
  ...mediaCommands(),
  ...settingsCommands(),
  command("invite create", `[--days 1-${INVITE_MAX_DAYS}]`, { days: inviteDays }, async (flags) =>
    inviteJson(await createInvite(cliActor(), { days: flags.days })),
  ),
  command("invite list", "[--limit N]", { limit: listLimit }, async (flags) => {
    const { invites, hasMore } = await listInvites({ limit: flags.limit ?? REPORT_LIST_DEFAULT });
    return { invites: invites.map(inviteJson), has_more: hasMore };
  }),
  command("invite revoke", "--code C", { code: value("an invite code") }, async (flags) => {
    const { code, revoked } = await revokeInvite(cliActor(), flags.code);
    return { code, revoked };
  }),
  {
    ...command(
      "import dir",
      "--user U PATH [--privacy public|unlisted|private] [--folder F] [--dry-run] [--ignore-quota]",
      {
        user: userRef,
        path: z.string({ error: flagError("needs a value (the directory)") }).min(1, "needs a value (the directory)"),
        privacy: oneOf(PRIVACIES).optional(),
        folder: value("a folder name or id").optional(),
        "dry-run": toggle,
        "ignore-quota": toggle,
      },
      async (flags) => {
        const user = await requireUser(flags.user);
        const account = {
          id: user.id,
          username: user.displayUsername,
          plan: user.plan,
          suspended: user.suspended,
          quotaOverride: user.quotaOverride === null ? null : Number(user.quotaOverride),
        };
        const summary = await importDirectory(account, flags.path, {
          privacy: flags.privacy ?? "private",
          folder: flags.folder,
          dryRun: flags["dry-run"],
          ignoreQuota: flags["ignore-quota"],
          progress: (line) => process.stderr.write(`${line}\n`),
        });
        if (!flags["dry-run"] && summary.imported.length) {
          await audit("user.import", { type: "user", id: user.id, label: user.displayUsername }, { imported: summary.imported.length });
        }
        return {
          dry_run: flags["dry-run"],
          imported: summary.imported,
          ...(flags["dry-run"] ? { would_import: summary.wouldImport } : {}),
          skipped: summary.skipped,
        };
      },
    ),
    positional: "path",
  },
  ...importCommands(),
  command("audit list", "[--limit N]", { limit: listLimit }, async (flags) => {
    const page = await listAudit({ limit: flags.limit ?? REPORT_LIST_DEFAULT });
    return { entries: page.items.map(auditJson), has_more: page.hasMore };
  }),
];

const reportUserJson = (u: ReportUser) => ({ id: u.id, username: u.username, suspended: u.suspended });

function reportJson(r: ReportRecord): CommandOutput {
  const t = r.target;
  const target =
    t.type === "post"
      ? { type: t.type, code: t.code, title: t.title, moderated: t.moderated, author: t.author && reportUserJson(t.author) }
      : t.type === "comment"
        ? { type: t.type, id: t.id, body: t.body, post_code: t.postCode, author: reportUserJson(t.author) }
        : { type: t.type, user: reportUserJson(t.user) };
  return {
    id: r.id,
    status: r.status,
    created_at: r.createdAt.toISOString(),
    reason: r.reason,
    ip: r.ip,
    reporter: reportUserJson(r.reporter),
    target,
  };
}

function inviteJson(i: InviteRecord): CommandOutput {
  return {
    code: i.code,
    url: i.url,
    status: i.status,
    created_at: i.createdAt.toISOString(),
    expires_at: i.expiresAt?.toISOString() ?? null,
    used_at: i.usedAt?.toISOString() ?? null,
    created_by: i.createdBy,
    used_by: i.usedBy,
  };
}

function auditJson(e: AuditEntry): CommandOutput {
  return {
    id: e.id,
    at: e.createdAt.toISOString(),
    source: e.source,
    actor: { id: e.actorId, name: e.actorName },
    action: e.action,
    target: { type: e.targetType, id: e.targetId, label: e.targetLabel },
    detail: e.detail,
  };
}

export function findCommand(words: readonly string[]): Command | undefined {
  const name = words.join(" ").toLowerCase();
  return COMMANDS.find((c) => c.name === name);
}
