"use client";
/** Teams (Ultra): create a team; the owner sees, regenerates and deletes its key; members; gallery. */
import { useId, useState, type FormEvent } from "react";
import { useRouter } from "next/navigation";
import { createTeamAction, deleteTeamKeyAction, regenerateTeamKeyAction } from "@/lib/web/dashboard/actions";
import type { IssuedTeamKey, TeamView } from "@/lib/web/dashboard/teams";
import { CopyButton } from "./copy-button";
import { Field } from "@/components/field";
import { ConfirmFirst } from "./confirm-first";
import { ErrorNotice } from "./notices";
import { type Act, useAction } from "./use-action";
import { card, dangerButton, formatDate, input, muted, primaryButton, secondaryButton } from "./ui";

export function TeamsPanel({ teams, canCreate }: { teams: TeamView[]; canCreate: boolean }) {
  const router = useRouter();
  const [issued, setIssued] = useState<IssuedTeamKey | null>(null);
  // The teams come from the page: a refresh reloads them after every change.
  const { act, pending, error, needsConfirmation, confirmed } = useAction(() => router.refresh());

  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Teams</h1>
        <p className={`${muted} mt-1`}>A team shares one gallery and one upload key. Team posts are always private to the team.</p>
      </div>

      {error && <ErrorNotice>{error}</ErrorNotice>}
      {needsConfirmation && <ConfirmFirst onConfirmed={confirmed} />}

      {issued && <IssuedKey teamKey={issued.key} />}

      {canCreate ? (
        <CreateTeamForm act={act} pending={pending} onCreated={setIssued} />
      ) : (
        <p className={`${card} text-sm`}>Creating a team needs the Ultra plan. You can still see the teams you were added to.</p>
      )}

      <ul className="space-y-4" aria-label="Your teams">
        {teams.length === 0 && <li className={muted}>You are not in any team.</li>}
        {teams.map((team) => (
          <TeamCard key={team.id} team={team} act={act} pending={pending} onIssued={setIssued} />
        ))}
      </ul>
    </div>
  );
}

/** A team key just created or regenerated: shown this once. */
function IssuedKey({ teamKey }: { teamKey: string }) {
  return (
    <div className="space-y-2 rounded-lg border border-emerald-300 bg-emerald-50 p-4 dark:border-emerald-700 dark:bg-emerald-950/40">
      <p className="font-medium">Team key: copy it now, it is shown only once.</p>
      <div className="flex flex-wrap items-center gap-2">
        <code className="min-w-0 flex-1 break-all rounded bg-white px-2 py-1.5 font-mono text-sm dark:bg-zinc-900">{teamKey}</code>
        <CopyButton value={teamKey} label="Copy key" />
      </div>
    </div>
  );
}

function CreateTeamForm({ act, pending, onCreated }: { act: Act; pending: boolean; onCreated: (value: IssuedTeamKey) => void }) {
  const [name, setName] = useState("");
  const nameId = useId();

  const create = (event: FormEvent) => {
    event.preventDefault();
    act(
      () => createTeamAction(name),
      (value) => {
        onCreated(value);
        setName("");
      },
    );
  };

  return (
    <form onSubmit={create} className={`${card} grid gap-3 sm:grid-cols-[1fr_auto] sm:items-end`} aria-label="Create a team">
      <Field id={nameId} label="Team name">
        <input
          id={nameId}
          value={name}
          maxLength={50}
          onChange={(e) => setName(e.target.value)}
          className={input}
          placeholder="e.g. Design"
        />
      </Field>
      <button type="submit" className={primaryButton} disabled={pending}>
        Create team
      </button>
    </form>
  );
}

/** What a team's card and its key controls get: the team, the panel's one action runner, and where a new key goes. */
type TeamProps = {
  team: TeamView;
  act: Act;
  pending: boolean;
  onIssued: (value: IssuedTeamKey | null) => void;
};

function TeamCard({ team, act, pending, onIssued }: TeamProps) {
  const active = team.status === "active";
  return (
    <li className={`${card} space-y-3`}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 className="text-lg font-medium">{team.name}</h2>
        <span
          className={`rounded px-2 py-0.5 text-xs font-medium ${active ? "bg-emerald-100 text-emerald-800 dark:bg-emerald-500/15 dark:text-emerald-300" : "bg-red-100 text-red-800 dark:bg-red-500/15 dark:text-red-300"}`}
        >
          Subscription {active ? "active" : "lapsed: uploads are paused"}
        </span>
      </div>
      <p className={muted}>
        You are {team.role === "owner" ? "the owner" : "a member"} · created {formatDate(team.createdAt)} · key{" "}
        {team.hasKey ? <span className="font-mono">{team.keyHint}…</span> : "deleted"}
      </p>
      {team.role === "owner" && <TeamKeyButtons team={team} act={act} pending={pending} onIssued={onIssued} />}
      <div>
        <h3 className="text-sm font-medium">Members ({team.members.length})</h3>
        <ul className="mt-1 flex flex-wrap gap-2">
          {team.members.map((m) => (
            <li key={m.userId} className="rounded-full bg-zinc-100 px-3 py-1 text-sm dark:bg-zinc-800">
              {m.username}
              {m.role === "owner" && <span className="text-zinc-500 dark:text-zinc-400"> (owner)</span>}
            </li>
          ))}
        </ul>
      </div>
      <a href={`/dashboard/teams/${team.id}`} className="inline-block text-sm text-brand-600 underline dark:text-brand-400">
        Open team gallery
      </a>
    </li>
  );
}

/** The owner's controls of the team key: create or regenerate (the new key is shown once), delete. */
function TeamKeyButtons({ team, act, pending, onIssued }: TeamProps) {
  const regenerate = () => {
    if (team.hasKey && !window.confirm("Regenerate the team key? The current key stops working at once.")) return;
    act(() => regenerateTeamKeyAction(team.id), onIssued);
  };
  const remove = () => {
    if (!window.confirm("Delete the team key? Uploads with it stop until you create a new one.")) return;
    act(
      () => deleteTeamKeyAction(team.id),
      () => onIssued(null),
    );
  };
  return (
    <div className="flex flex-wrap gap-2">
      <button type="button" className={secondaryButton} disabled={pending} onClick={regenerate}>
        {team.hasKey ? "Regenerate key" : "Create key"}
      </button>
      {team.hasKey && (
        <button type="button" className={dangerButton} disabled={pending} onClick={remove}>
          Delete key
        </button>
      )}
    </div>
  );
}
