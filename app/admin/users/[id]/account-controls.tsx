/** The levers of one account on its admin page: plan, role, quota, priority minutes, suspension, reset link, deletion. */
import type { ReactNode } from "react";
import { Confirm } from "@/components/admin/confirm";
import { ResetLinkForm } from "@/components/admin/reset-link-form";
import { Back } from "@/components/admin/parts";
import {
  card,
  dangerButton,
  formatBytes,
  input,
  label as labelClass,
  muted,
  primaryButton,
  secondaryButton,
} from "@/components/dashboard/ui";
import { ROLES } from "@/lib/admin/roles";
import type { AdminUserDetail } from "@/lib/admin/users";
import { PLANS } from "@/lib/plans";
import {
  deleteUserAction,
  setPlanAction,
  setPriorityAction,
  setQuotaAction,
  setRoleAction,
  suspendAction,
  unsuspendAction,
} from "@/lib/web/admin/actions";

/** `here` is where every action returns; `self` is whether the admin is looking at their own account. */
export function AccountControls({ user, here, self }: { user: AdminUserDetail; here: string; self: boolean }) {
  const lever = { user: user.id, here };
  return (
    <section className={`${card} grid gap-4 sm:grid-cols-2`} aria-label="Account">
      <SettingForm {...lever} action={setPlanAction} id="plan" label="Plan" button="Set plan">
        <select id="plan" name="plan" defaultValue={user.plan} className={input}>
          {PLANS.map((p) => (
            <option key={p}>{p}</option>
          ))}
        </select>
      </SettingForm>
      <SettingForm
        {...lever}
        action={setRoleAction}
        id="role"
        label="Role"
        button="Set role"
        disabled={self}
        hint={self && <p className={muted}>You cannot change your own role.</p>}
      >
        <select id="role" name="role" defaultValue={user.role} className={input} disabled={self}>
          {ROLES.map((r) => (
            <option key={r}>{r}</option>
          ))}
        </select>
      </SettingForm>
      <SettingForm
        {...lever}
        action={setQuotaAction}
        id="quota"
        label="Weekly quota"
        button="Set quota"
        hint={
          <p className={muted}>
            Now {user.quotaOverride === null ? "the plan's quota" : formatBytes(user.quotaOverride)}. Bytes, or 500MB, 10GB; empty for the
            plan&apos;s.
          </p>
        }
      >
        <input
          id="quota"
          name="quota"
          className={input}
          placeholder="Plan default"
          defaultValue={user.quotaOverride === null ? "" : String(user.quotaOverride)}
          maxLength={32}
        />
      </SettingForm>
      <SettingForm {...lever} action={setPriorityAction} id="minutes" label="Priority minutes" button="Set minutes">
        <input
          id="minutes"
          name="minutes"
          inputMode="numeric"
          className={input}
          defaultValue={user.priorityMinutes ?? ""}
          required
          pattern="\d+"
        />
      </SettingForm>
      <SuspensionForm user={user} here={here} self={self} />
      <ResetLinkForm user={user} />
      {!self && <DeleteUserForm user={user} />}
    </section>
  );
}

/** One lever: its label, its control (`children`, whose id is `id`) beside the submit button, and what is below them. */
function SettingForm({
  action,
  user,
  here,
  id,
  label,
  button,
  disabled,
  hint,
  children,
}: {
  action: (form: FormData) => Promise<void>;
  user: string;
  here: string;
  id: string;
  label: string;
  button: string;
  disabled?: boolean;
  hint?: ReactNode;
  children: ReactNode;
}) {
  return (
    <form action={action} className="space-y-1">
      <Back path={here} />
      <input type="hidden" name="user" value={user} />
      <label htmlFor={id} className={labelClass}>
        {label}
      </label>
      <div className="flex gap-2">
        {children}
        <button type="submit" className={secondaryButton} disabled={disabled}>
          {button}
        </button>
      </div>
      {hint}
    </form>
  );
}

/** Suspend, or unsuspend with the time it began. An admin cannot suspend themself. */
function SuspensionForm({ user, here, self }: { user: AdminUserDetail; here: string; self: boolean }) {
  return (
    <form action={user.suspended ? unsuspendAction : suspendAction} className="flex items-center gap-3 sm:col-span-2">
      <Back path={here} />
      <input type="hidden" name="user" value={user.id} />
      <span className={muted}>
        {user.suspended ? `Suspended since ${user.suspendedAt?.toISOString().slice(0, 16).replace("T", " ")} UTC.` : "Active."}
      </span>
      {user.suspended ? (
        <button type="submit" className={primaryButton}>
          Unsuspend
        </button>
      ) : (
        <button type="submit" className={dangerButton} disabled={self}>
          Suspend
        </button>
      )}
    </form>
  );
}

/**
 * Deletes the account and everything of it, teams it owns included (docs/account-deletion.md),
 * behind a second click and the username typed again. Not offered on the admin's own account.
 */
function DeleteUserForm({ user }: { user: AdminUserDetail }) {
  return (
    <div className="flex flex-wrap items-center gap-3 sm:col-span-2">
      <span className={muted}>Delete the account with its posts, files, keys and teams. The audit log keeps the entry.</span>
      <Confirm label="Delete account" confirm="Delete for good" action={deleteUserAction}>
        <Back path="/admin/users" />
        <input type="hidden" name="user" value={user.id} />
        <label htmlFor="delete-confirm" className="sr-only">
          Type the username to confirm
        </label>
        <input id="delete-confirm" name="confirm" placeholder={user.username} required className={input} autoComplete="off" />
      </Confirm>
    </div>
  );
}
