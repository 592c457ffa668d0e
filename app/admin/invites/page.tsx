import { Confirm } from "@/components/admin/confirm";
import { Back, Flash, PageHeading, param, type SearchParams } from "@/components/admin/parts";
import { CopyButton } from "@/components/dashboard/copy-button";
import { card, input, label, muted, primaryButton } from "@/components/dashboard/ui";
import { INVITE_DEFAULT_DAYS, INVITE_MAX_DAYS, listInvites } from "@/lib/admin/invites";
import { env } from "@/lib/config/env";
import { requireAdmin } from "@/lib/web/admin/guard";
import { createInviteAction, revokeInviteAction } from "@/lib/web/admin/actions";

export const metadata = { title: "Invites" };

const HERE = "/admin/invites";
const day = (date: Date | null) => (date ? `${date.toISOString().slice(0, 16).replace("T", " ")} UTC` : "never");

export default async function AdminInvitesPage({ searchParams }: { searchParams: SearchParams }) {
  await requireAdmin();
  const params = await searchParams;
  const { invites, hasMore } = await listInvites({ limit: 100 });
  const mode = env().REGISTRATION;
  return (
    <>
      <PageHeading title="Invites">
        {mode === "invite"
          ? "Sign-up needs an invite code. Each code signs up one person."
          : `Registration is ${mode} (REGISTRATION=${mode}): codes made here are needed only once it is set to invite.`}
      </PageHeading>
      <Flash notice={param(params, "notice")} error={param(params, "error")} />
      <form action={createInviteAction} className={`${card} flex flex-wrap items-end gap-2`} aria-label="Create an invite">
        <Back path={HERE} />
        <div className="space-y-1">
          <label htmlFor="days" className={label}>
            Valid for (days)
          </label>
          <input
            id="days"
            name="days"
            type="number"
            min={1}
            max={INVITE_MAX_DAYS}
            defaultValue={INVITE_DEFAULT_DAYS}
            className={`${input} w-28`}
            required
          />
        </div>
        <button type="submit" className={primaryButton}>
          Create invite
        </button>
      </form>
      {invites.length === 0 && <p className={muted}>No invites yet.</p>}
      <ul className="space-y-2">
        {invites.map((invite) => (
          <li
            key={invite.code}
            className={`${card} flex flex-wrap items-center justify-between gap-2`}
            data-invite={invite.code}
            data-status={invite.status}
          >
            <div className="min-w-0">
              <p className="truncate font-mono text-sm">{invite.code}</p>
              {invite.status === "unused" && (
                <p className="select-all truncate text-xs text-zinc-500 dark:text-zinc-400" data-testid="invite-url">
                  {invite.url}
                </p>
              )}
              <p className={muted}>
                {invite.status === "used"
                  ? `Used by ${invite.usedBy ?? "a deleted user"} on ${day(invite.usedAt)}`
                  : invite.status === "expired"
                    ? `Expired ${day(invite.expiresAt)}`
                    : `Unused, expires ${day(invite.expiresAt)}`}
                {invite.createdBy ? ` · by ${invite.createdBy}` : " · from the CLI"}
              </p>
            </div>
            {invite.status !== "used" && (
              <div className="flex gap-2">
                {invite.status === "unused" && <CopyButton value={invite.url} label="Copy link" />}
                <Confirm label="Revoke" confirm={`Revoke ${invite.code}`} action={revokeInviteAction}>
                  <Back path={HERE} />
                  <input type="hidden" name="code" value={invite.code} />
                </Confirm>
              </div>
            )}
          </li>
        ))}
      </ul>
      {hasMore && <p className={muted}>The newest 100 are shown.</p>}
    </>
  );
}
