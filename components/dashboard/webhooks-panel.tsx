"use client";
/**
 * Webhooks (docs/webhooks.md): list, create (URL, events, format, app; the secret shown
 * once), send a test, the delivery log with the last responses, pause, re-enable after a
 * disable, delete. Everything goes through `/api/webhooks` with the session cookie.
 */
import { useCallback, useEffect, useId, useState } from "react";
import type { DeliveryList, Webhook as WebhookSchema, WebhookDelivery, WebhookList, WebhookReply } from "@/lib/replies/webhooks";
import { api, type Reply } from "./api";
import { CopyButton } from "./copy-button";
import { ConfirmFirst } from "./confirm-first";
import { CreateForm, ItemList, PanelHeading, type Run, errorMessage, useRun } from "./list-panel";
import { ErrorNotice, LoadedList } from "./notices";
import { card, dangerButton, formatDate, input, label, muted, primaryButton, secondaryButton } from "./ui";

const EVENTS = [
  { type: "upload", label: "Upload" },
  { type: "post.deleted", label: "Post deleted" },
  { type: "post.moderated", label: "Post moderated" },
  { type: "comment.received", label: "Comment received" },
  { type: "folder.guest_upload", label: "Guest upload" },
] as const;

type Webhook = Reply<typeof WebhookSchema>;
type Delivery = Reply<typeof WebhookDelivery>;
type EventType = Webhook["events"][number];
type Format = Webhook["format"];

export function WebhooksPanel({ apps }: { apps: { id: string; name: string }[] }) {
  const { hooks, loadError, load } = useWebhooks();
  const { error, busy, run, needsConfirmation, confirmed } = useRun();
  const [created, setCreated] = useState<Webhook | null>(null);

  return (
    <div className="space-y-6">
      <PanelHeading title="Webhooks" error={error ?? loadError}>
        Get a signed POST on your server (or a Discord channel) when you upload, a post is deleted or moderated, or someone comments. Failed
        deliveries are retried with backoff; a webhook that keeps failing is disabled.
      </PanelHeading>
      {needsConfirmation && <ConfirmFirst onConfirmed={confirmed} />}

      {created?.secret && <NewWebhookSecret url={created.url} secret={created.secret} onDone={() => setCreated(null)} />}

      <AddWebhookForm apps={apps} busy={busy} run={run} reload={load} onCreated={setCreated} />

      <ItemList items={hooks} empty="No webhooks yet." label="Webhooks" spacing="space-y-4">
        {(hook) => <WebhookCard key={hook.id} hook={hook} busy={busy} run={run} reload={load} />}
      </ItemList>
    </div>
  );
}

/** The account's webhooks (null until loaded), why loading failed, and `load` to read them again. */
function useWebhooks(): { hooks: Webhook[] | null; loadError: string | null; load: () => Promise<void> } {
  const [hooks, setHooks] = useState<Webhook[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const load = useCallback(async () => {
    try {
      setHooks((await api<Reply<typeof WebhookList>>("/api/webhooks")).webhooks);
      setLoadError(null);
    } catch (e) {
      setLoadError(errorMessage(e));
    }
  }, []);
  useEffect(() => void load(), [load]);
  return { hooks, loadError, load };
}

/** The signing secret of the webhook just created: the API returns it this once. */
function NewWebhookSecret({ url, secret, onDone }: { url: string; secret: string; onDone: () => void }) {
  return (
    <section className={card} aria-label="New webhook secret">
      <p className="text-sm font-medium">Signing secret of {url}</p>
      <p className={muted}>Shown only now. Verify the webhook-signature header with it (see the docs).</p>
      <div className="mt-2 flex items-center gap-2">
        <code data-testid="webhook-secret" className="break-all rounded bg-zinc-100 px-2 py-1 text-sm dark:bg-zinc-800">
          {secret}
        </code>
        <CopyButton value={secret} />
      </div>
      <button type="button" className={`${secondaryButton} mt-3`} onClick={onDone}>
        Done
      </button>
    </section>
  );
}

function AddWebhookForm({
  apps,
  busy,
  run,
  reload,
  onCreated,
}: {
  apps: { id: string; name: string }[];
  busy: boolean;
  run: Run;
  reload: () => Promise<void>;
  onCreated: (webhook: Webhook) => void;
}) {
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<EventType[]>(["upload"]);
  const [format, setFormat] = useState<Format>("generic");
  const [appId, setAppId] = useState("");
  const ids = { url: useId(), format: useId() };

  const create = () => {
    void run(async () => {
      const { webhook } = await api<Reply<typeof WebhookReply>>("/api/webhooks", {
        method: "POST",
        body: JSON.stringify({ url, events, format, app_id: appId || null }),
      });
      onCreated(webhook);
      setUrl("");
      await reload();
    });
  };

  const toggle = (type: EventType) => setEvents((list) => (list.includes(type) ? list.filter((t) => t !== type) : [...list, type]));

  return (
    <CreateForm
      label="Add a webhook"
      heading="Add a webhook"
      submit="Add webhook"
      busy={busy}
      disabled={!url || events.length === 0}
      onSubmit={create}
    >
      <div>
        <label htmlFor={ids.url} className={label}>
          Payload URL
        </label>
        <input
          id={ids.url}
          className={input}
          type="url"
          required
          placeholder="https://example.com/hooks/mediahost"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
        />
      </div>
      <EventChoices chosen={events} onToggle={toggle} />
      <div className="flex flex-wrap gap-4">
        <div>
          <label htmlFor={ids.format} className={label}>
            Format
          </label>
          <select
            id={ids.format}
            className={input}
            value={format}
            onChange={(e) => setFormat(e.target.value === "discord" ? "discord" : "generic")}
          >
            <option value="generic">JSON (signed)</option>
            <option value="discord">Discord</option>
          </select>
        </div>
        <AppChoice apps={apps} value={appId} onChange={setAppId} />
      </div>
    </CreateForm>
  );
}

function EventChoices({ chosen, onToggle }: { chosen: readonly EventType[]; onToggle: (type: EventType) => void }) {
  return (
    <fieldset>
      <legend className={label}>Events</legend>
      <div className="mt-1 flex flex-wrap gap-4">
        {EVENTS.map((e) => (
          <label key={e.type} className="flex items-center gap-2 text-sm">
            <input type="checkbox" checked={chosen.includes(e.type)} onChange={() => onToggle(e.type)} />
            {e.label}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

/** Which posts the webhook hears of: one app's, or the whole account's (empty value). */
function AppChoice({ apps, value, onChange }: { apps: { id: string; name: string }[]; value: string; onChange: (appId: string) => void }) {
  const id = useId();
  return (
    <div>
      <label htmlFor={id} className={label}>
        Posts of
      </label>
      <select id={id} className={input} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">Every app (the whole account)</option>
        {apps.map((a) => (
          <option key={a.id} value={a.id}>
            {a.name}
          </option>
        ))}
      </select>
    </div>
  );
}

function WebhookCard({ hook, busy, run, reload }: { hook: Webhook; busy: boolean; run: Run; reload: () => Promise<void> }) {
  const [log, setLog] = useState<Delivery[] | null>(null);
  const [open, setOpen] = useState(false);

  const loadLog = useCallback(async () => {
    setLog((await api<Reply<typeof DeliveryList>>(`/api/webhooks/${hook.id}/deliveries?limit=20`)).deliveries);
  }, [hook.id]);

  const patch = (body: object) =>
    run(async () => {
      await api(`/api/webhooks/${hook.id}`, { method: "PATCH", body: JSON.stringify(body) });
      await reload();
    });
  const sendTest = () =>
    run(async () => {
      await api(`/api/webhooks/${hook.id}/test`, { method: "POST" });
      setOpen(true);
      await loadLog();
    });
  const toggleLog = () =>
    run(async () => {
      setOpen(!open);
      if (!open) await loadLog();
    });
  const remove = () =>
    run(async () => {
      if (!window.confirm(`Delete the webhook to ${hook.url}?`)) return;
      await api(`/api/webhooks/${hook.id}`, { method: "DELETE" });
      await reload();
    });

  return (
    <li className={card} aria-label={`Webhook ${hook.url}`}>
      <WebhookSummary hook={hook} />
      <div className="mt-3 flex flex-wrap gap-2">
        <button type="button" className={secondaryButton} disabled={busy} onClick={() => void sendTest()}>
          Send test
        </button>
        <button type="button" className={secondaryButton} disabled={busy} onClick={() => void toggleLog()}>
          {open ? "Hide deliveries" : "Recent deliveries"}
        </button>
        {hook.enabled ? (
          <button type="button" className={secondaryButton} disabled={busy} onClick={() => void patch({ enabled: false })}>
            Pause
          </button>
        ) : (
          <button type="button" className={primaryButton} disabled={busy} onClick={() => void patch({ enabled: true })}>
            Re-enable
          </button>
        )}
        <button type="button" className={dangerButton} disabled={busy} onClick={() => void remove()}>
          Delete
        </button>
      </div>
      {open && <DeliveryLog log={log} onRefresh={() => void run(loadLog)} />}
    </li>
  );
}

/** Where a webhook posts, what and for which app, whether it is active, and why not. */
function WebhookSummary({ hook }: { hook: Webhook }) {
  return (
    <>
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0">
          <p className="break-all font-medium">{hook.url}</p>
          <p className={muted}>
            {hook.events.join(", ")} · {hook.format === "discord" ? "Discord" : "JSON"} ·{" "}
            {hook.app_name ? `posts of ${hook.app_name}` : "every app"}
            {hook.last_delivery_at ? ` · last delivered ${formatDate(hook.last_delivery_at)}` : ""}
          </p>
        </div>
        <span
          className={`rounded px-2 py-0.5 text-xs font-medium ${hook.enabled ? "bg-green-100 text-green-800 dark:bg-green-900/40 dark:text-green-300" : "bg-red-100 text-red-800 dark:bg-red-900/40 dark:text-red-300"}`}
        >
          {hook.enabled ? "Active" : "Disabled"}
        </span>
      </div>
      {!hook.enabled && hook.disabled_reason && (
        <ErrorNotice role="status" spacing="mt-2 p-2">
          {hook.disabled_reason}
        </ErrorNotice>
      )}
    </>
  );
}

/** The last deliveries of a webhook (null while loading), refreshed on demand. */
function DeliveryLog({ log, onRefresh }: { log: readonly Delivery[] | null; onRefresh: () => void }) {
  return (
    <div className="mt-3">
      <div className="flex items-center justify-between">
        <h3 className="text-sm font-semibold">Recent deliveries</h3>
        <button type="button" className="text-sm underline" onClick={onRefresh}>
          Refresh
        </button>
      </div>
      <LoadedList items={log} empty="No deliveries yet.">
        {(deliveries) => <DeliveryTable deliveries={deliveries} />}
      </LoadedList>
    </div>
  );
}

function DeliveryTable({ deliveries }: { deliveries: readonly Delivery[] }) {
  return (
    <table className="mt-2 w-full text-left text-sm">
      <thead>
        <tr className="text-zinc-500 dark:text-zinc-400">
          <th className="py-1 pr-2 font-medium">Time</th>
          <th className="py-1 pr-2 font-medium">Event</th>
          <th className="py-1 pr-2 font-medium">Attempt</th>
          <th className="py-1 pr-2 font-medium">Result</th>
          <th className="py-1 font-medium">Response</th>
        </tr>
      </thead>
      <tbody>
        {deliveries.map((d) => (
          <tr key={d.id} className="border-t border-zinc-200 align-top dark:border-zinc-800">
            <td className="py-1 pr-2 whitespace-nowrap">{formatDate(d.created_at)}</td>
            <td className="py-1 pr-2">{d.event}</td>
            <td className="py-1 pr-2">{d.attempt}</td>
            <td className={`py-1 pr-2 whitespace-nowrap ${d.ok ? "text-green-700 dark:text-green-400" : "text-red-700 dark:text-red-400"}`}>
              {d.status ?? "no response"} · {d.duration_ms} ms
            </td>
            <td className="py-1 break-all">
              <code className="text-xs">{d.error ?? d.response ?? ""}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
