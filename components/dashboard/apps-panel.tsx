"use client";
/** Apps and keys: create (up to 10), gallery access, revoke, regenerate; keys shown once. */
import { useId, useState, type FormEvent } from "react";
import { createAppAction, regenerateAppAction, revokeAppAction, setGalleryAccessAction } from "@/lib/web/dashboard/actions";
import type { AppView, IssuedAppView } from "@/lib/web/dashboard/apps";
import { Field } from "@/components/field";
import { ConfirmFirst } from "./confirm-first";
import { ErrorNotice } from "./notices";
import { UploaderSetupPanel } from "./uploader-setup";
import { type Act, useAction } from "./use-action";
import { card, dangerButton, formatDate, input, muted, primaryButton, secondaryButton } from "./ui";

export function AppsPanel({ initialApps, maxApps }: { initialApps: AppView[]; maxApps: number }) {
  const [apps, setApps] = useState(initialApps);
  const [issued, setIssued] = useState<IssuedAppView | null>(null);
  const { act, pending, error, needsConfirmation, confirmed } = useAction();
  const working = apps.filter((a) => !a.revoked).length;

  const replace = (app: AppView) =>
    setApps((list) => (list.some((a) => a.id === app.id) ? list.map((a) => (a.id === app.id ? app : a)) : [...list, app]));
  /** A new key: the app changes in the list and its setup (the key shown once) opens. */
  const issue = (value: IssuedAppView) => {
    replace(value.app);
    setIssued(value);
  };
  const markRevoked = (app: AppView) => {
    replace(app);
    if (issued?.app.id === app.id) setIssued(null);
  };

  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Apps & keys</h1>
        <p className={`${muted} mt-1`}>
          Each app is a named API key for one uploader (ShareX, Flameshot, a script). You have {working} of {maxApps} working apps.
        </p>
      </div>

      {error && <ErrorNotice>{error}</ErrorNotice>}
      {needsConfirmation && <ConfirmFirst onConfirmed={confirmed} />}

      {issued && <UploaderSetupPanel setup={issued.setup} appName={issued.app.name} />}

      <CreateAppForm act={act} disabled={pending || working >= maxApps} onCreated={issue} />

      <ul className="space-y-3" aria-label="Apps">
        {apps.length === 0 && <li className={muted}>No apps yet.</li>}
        {apps.map((app) => (
          <AppRow key={app.id} app={app} act={act} pending={pending} onChanged={replace} onIssued={issue} onRevoked={markRevoked} />
        ))}
      </ul>
    </div>
  );
}

function CreateAppForm({ act, disabled, onCreated }: { act: Act; disabled: boolean; onCreated: (value: IssuedAppView) => void }) {
  const [name, setName] = useState("");
  const [gallery, setGallery] = useState(false);
  const ids = { name: useId(), gallery: useId() };

  const create = (event: FormEvent) => {
    event.preventDefault();
    act(
      () => createAppAction(name, gallery),
      (value) => {
        onCreated(value);
        setName("");
        setGallery(false);
      },
    );
  };

  return (
    <form onSubmit={create} className={`${card} grid gap-3 sm:grid-cols-[1fr_auto_auto] sm:items-end`} aria-label="Create an app">
      <Field id={ids.name} label="App name">
        <input
          id={ids.name}
          value={name}
          maxLength={50}
          placeholder="e.g. ShareX on my desktop"
          onChange={(e) => setName(e.target.value)}
          className={input}
        />
      </Field>
      <label htmlFor={ids.gallery} className="flex items-center gap-2 text-sm sm:pb-2">
        <input
          id={ids.gallery}
          type="checkbox"
          checked={gallery}
          onChange={(e) => setGallery(e.target.checked)}
          className="h-4 w-4 accent-brand-600"
        />
        Gallery access
      </label>
      <button type="submit" className={primaryButton} disabled={disabled}>
        Create app
      </button>
    </form>
  );
}

/** One app: its state and key hint, and its gallery access, regenerate and revoke controls. */
function AppRow({
  app,
  act,
  pending,
  onChanged,
  onIssued,
  onRevoked,
}: {
  app: AppView;
  act: Act;
  pending: boolean;
  onChanged: (app: AppView) => void;
  onIssued: (value: IssuedAppView) => void;
  onRevoked: (app: AppView) => void;
}) {
  const regenerate = () => {
    if (!app.revoked && !window.confirm(`Regenerate the key of ${app.name}? The current key stops working at once.`)) return;
    act(() => regenerateAppAction(app.id), onIssued);
  };
  const revoke = () => {
    if (!window.confirm(`Revoke ${app.name}? Its key stops working at once.`)) return;
    act(() => revokeAppAction(app.id), onRevoked);
  };

  return (
    <li className={`${card} flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-between`} data-app={app.name}>
      <div className="min-w-0 space-y-1">
        <p className="flex flex-wrap items-center gap-2 font-medium">
          {app.name}
          {app.revoked ? (
            <span className="rounded bg-red-100 px-1.5 py-0.5 text-xs text-red-800 dark:bg-red-500/15 dark:text-red-300">revoked</span>
          ) : (
            <span className="rounded bg-emerald-100 px-1.5 py-0.5 text-xs text-emerald-800 dark:bg-emerald-500/15 dark:text-emerald-300">
              active
            </span>
          )}
        </p>
        <p className="text-xs text-zinc-500 dark:text-zinc-400">
          {app.keyHint ? <span className="font-mono">{app.keyHint}…</span> : "no key"} · created {formatDate(app.createdAt)} ·{" "}
          {app.lastUsedAt ? `last used ${formatDate(app.lastUsedAt)}` : "never used"}
        </p>
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <label className="flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            checked={app.galleryAccess}
            disabled={pending}
            onChange={(e) => act(() => setGalleryAccessAction(app.id, e.target.checked), onChanged)}
            className="h-4 w-4 accent-brand-600"
          />
          Gallery access<span className="sr-only"> for {app.name}</span>
        </label>
        <button type="button" className={secondaryButton} disabled={pending} onClick={regenerate}>
          Regenerate<span className="sr-only"> key of {app.name}</span>
        </button>
        {!app.revoked && (
          <button type="button" className={dangerButton} disabled={pending} onClick={revoke}>
            Revoke<span className="sr-only"> {app.name}</span>
          </button>
        )}
      </div>
    </li>
  );
}
