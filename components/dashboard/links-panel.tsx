"use client";
/**
 * Short links (docs/short-links.md): shorten a URL (optional code, click limit, expiry),
 * the list with clicks and state, copy and delete; each link's QR code and visits
 * (docs/qr-and-visits.md). Everything goes through `/api/links`
 * with the session cookie, as other clients do.
 */
import { useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import type { Link as LinkSchema, LinkPage, LinkReply } from "@/lib/replies/links";
import { api, type Reply } from "./api";
import { CopyButton } from "./copy-button";
import { LinkInsights } from "./link-visits";
import { CreateForm, ItemList, PanelHeading, type Run, useRun } from "./list-panel";
import { card, dangerButton, formatDate, input, label, muted, secondaryButton } from "./ui";

type ShortLink = Reply<typeof LinkSchema>;

const EXPIRIES = [
  { value: "", label: "Never" },
  { value: "1h", label: "In an hour" },
  { value: "1d", label: "In a day" },
  { value: "7d", label: "In a week" },
  { value: "30d", label: "In 30 days" },
] as const;

function useLinkPages() {
  return useInfiniteQuery({
    queryKey: ["links"],
    initialPageParam: null as string | null,
    queryFn: ({ pageParam, signal }) =>
      api<Reply<typeof LinkPage>>(`/api/links?limit=50${pageParam ? `&cursor=${encodeURIComponent(pageParam)}` : ""}`, { signal }),
    getNextPageParam: (last) => (last.has_more ? last.next_cursor : null),
  });
}

export function LinksPanel() {
  const queryClient = useQueryClient();
  const query = useLinkPages();
  const { error, busy, run } = useRun(() => void queryClient.invalidateQueries({ queryKey: ["links"] }));

  return (
    <div className="space-y-6">
      <PanelHeading title="Short links" error={error}>
        A short link redirects to any web address; it can stop after a number of clicks or at a time.
      </PanelHeading>
      <NewLinkForm busy={busy} run={run} />
      <ItemList
        items={query.data ? query.data.pages.flatMap((p) => p.links) : null}
        error={query.error}
        empty="No short links yet."
        label="Short links"
      >
        {(link) => <LinkRow key={link.code} link={link} busy={busy} onDelete={() => run(() => deleteLink(link.code))} />}
      </ItemList>
      {query.hasNextPage && (
        <button type="button" className={secondaryButton} disabled={query.isFetchingNextPage} onClick={() => void query.fetchNextPage()}>
          Load more
        </button>
      )}
    </div>
  );
}

async function deleteLink(code: string): Promise<void> {
  if (!window.confirm("Delete this short link? It stops working at once.")) return;
  await api(`/api/links/${encodeURIComponent(code)}`, { method: "DELETE" });
}

function NewLinkForm({ busy, run }: { busy: boolean; run: Run }) {
  const [url, setUrl] = useState("");
  const [code, setCode] = useState("");
  const [maxClicks, setMaxClicks] = useState("");
  const [expiry, setExpiry] = useState("");
  const [made, setMade] = useState<ShortLink | null>(null);
  const ids = { url: useId(), code: useId(), clicks: useId(), expiry: useId() };

  const submit = () => {
    void run(async () => {
      const body = {
        url,
        ...(code.trim() ? { code: code.trim() } : {}),
        ...(maxClicks ? { max_clicks: Number(maxClicks) } : {}),
        ...(expiry ? { expires_at: expiry } : {}),
      };
      const { link } = await api<Reply<typeof LinkReply>>("/api/links", { method: "POST", body: JSON.stringify(body) });
      setMade(link);
      setUrl("");
      setCode("");
    });
  };

  return (
    <CreateForm
      label="Shorten a URL"
      submit="Shorten"
      busy={busy}
      onSubmit={submit}
      after={
        made && (
          <p role="status" className="flex flex-wrap items-center gap-2 text-sm">
            <span>Short link:</span>
            <code data-testid="new-short-url" className="break-all rounded bg-zinc-100 px-2 py-1 dark:bg-zinc-800">
              {made.short_url}
            </code>
            <CopyButton value={made.short_url} />
          </p>
        )
      }
    >
      <div>
        <label htmlFor={ids.url} className={label}>
          URL to shorten
        </label>
        <input
          id={ids.url}
          className={input}
          type="url"
          required
          placeholder="https://example.com/a/long/address"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
        />
      </div>
      <div className="grid gap-3 sm:grid-cols-3">
        <div>
          <label htmlFor={ids.code} className={label}>
            Code (optional)
          </label>
          <input id={ids.code} className={input} pattern="[A-Za-z0-9_\-]{3,32}" value={code} onChange={(e) => setCode(e.target.value)} />
        </div>
        <div>
          <label htmlFor={ids.clicks} className={label}>
            Click limit (optional)
          </label>
          <input id={ids.clicks} className={input} type="number" min={1} value={maxClicks} onChange={(e) => setMaxClicks(e.target.value)} />
        </div>
        <div>
          <label htmlFor={ids.expiry} className={label}>
            Expires
          </label>
          <select id={ids.expiry} className={input} value={expiry} onChange={(e) => setExpiry(e.target.value)}>
            {EXPIRIES.map((e) => (
              <option key={e.value} value={e.value}>
                {e.label}
              </option>
            ))}
          </select>
        </div>
      </div>
    </CreateForm>
  );
}

function LinkRow({ link, busy, onDelete }: { link: ShortLink; busy: boolean; onDelete: () => void }) {
  const [open, setOpen] = useState(false);
  return (
    <li className={`${card} space-y-3`} data-link={link.code}>
      <LinkSummary link={link} busy={busy} onDelete={onDelete} open={open} onToggle={() => setOpen(!open)} />
      {open && <LinkInsights code={link.code} shortUrl={link.short_url} />}
    </li>
  );
}

function LinkSummary({
  link,
  busy,
  onDelete,
  open,
  onToggle,
}: {
  link: ShortLink;
  busy: boolean;
  onDelete: () => void;
  open: boolean;
  onToggle: () => void;
}) {
  const clicks = link.max_clicks === null ? `${link.click_count} clicks` : `${link.click_count} of ${link.max_clicks} clicks`;
  return (
    <div className="flex flex-col gap-2 sm:flex-row sm:items-center sm:justify-between">
      <div className="min-w-0 space-y-1">
        <p className="flex flex-wrap items-center gap-2">
          <a href={link.short_url} className="break-all font-medium text-brand-700 hover:underline dark:text-brand-400">
            {link.short_url}
          </a>
          {!link.active && <span className="rounded bg-zinc-200 px-1.5 py-0.5 text-xs dark:bg-zinc-700">inactive</span>}
        </p>
        <p className={`${muted} break-all`}>→ {link.url}</p>
        <p className={muted}>
          {clicks}
          {link.expires_at ? ` · expires ${formatDate(link.expires_at)}` : ""} · created {formatDate(link.created_at)}
        </p>
      </div>
      <div className="flex shrink-0 flex-wrap gap-2">
        <CopyButton value={link.short_url} />
        <button
          type="button"
          className={secondaryButton}
          aria-expanded={open}
          onClick={onToggle}
          aria-label={`QR code and visits of ${link.short_url}`}
        >
          QR & visits
        </button>
        <button type="button" className={dangerButton} disabled={busy} onClick={onDelete} aria-label={`Delete ${link.short_url}`}>
          Delete
        </button>
      </div>
    </div>
  );
}
