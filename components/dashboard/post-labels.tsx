"use client";
/**
 * The post editor's own labels (docs/tags.md): the favourite mark and the post's tags, saved
 * in one PATCH (`favorite`, `tags`); and the share page's QR code (docs/qr-and-visits.md).
 * Team posts have neither tags nor favourites.
 */
import { useState } from "react";
import type { PostReply } from "@/lib/presenters/posts";
import { api, type Post, type Reply } from "./api";
import { QrCode } from "./qr-code";
import { TagChip } from "./tag-chip";
import { type Tag, useTags } from "./tags";
import { muted, secondaryButton } from "./ui";

type Run = (work: () => Promise<void>) => Promise<void>;

export function PostLabels({
  post,
  busy,
  run,
  onChanged,
  onSaved,
}: {
  post: Post;
  busy: boolean;
  run: Run;
  onChanged: (post: Post) => void;
  onSaved: () => void;
}) {
  const tags = useTags().data ?? [];
  const [favorite, setFavorite] = useState(post.favorite ?? false);
  const [chosen, setChosen] = useState<Set<string>>(() => new Set((post.tags ?? []).map((t) => t.id)));
  const toggle = (id: string) =>
    setChosen((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const save = () =>
    void run(async () => {
      const body = JSON.stringify({ favorite, tags: tags.filter((t) => chosen.has(t.id)).map((t) => t.id) });
      const reply = await api<Reply<typeof PostReply>>(`/api/posts/${encodeURIComponent(post.code)}`, { method: "PATCH", body });
      onChanged(reply.post);
      onSaved();
    });
  return (
    <fieldset className="space-y-2 rounded-lg border border-zinc-200 p-3 dark:border-zinc-800">
      <legend className="px-1 text-sm font-medium">Favourite and tags</legend>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={favorite} onChange={(e) => setFavorite(e.target.checked)} className="h-4 w-4 accent-brand-600" />
        Favourite
      </label>
      <TagChoices tags={tags} chosen={chosen} onToggle={toggle} />
      <button type="button" className={secondaryButton} disabled={busy} onClick={save}>
        Save favourite and tags
      </button>
    </fieldset>
  );
}

/** One checkbox per tag of the account; a pointer to the tags page while there is none. */
function TagChoices({ tags, chosen, onToggle }: { tags: Tag[]; chosen: Set<string>; onToggle: (id: string) => void }) {
  return tags.length === 0 ? (
    <p className={muted}>
      No tags yet: create some on the{" "}
      <a href="/dashboard/tags" className="underline">
        Tags
      </a>{" "}
      page.
    </p>
  ) : (
    <ul className="flex flex-wrap gap-2" aria-label="Tags">
      {tags.map((t) => (
        <li key={t.id}>
          <label className="flex items-center gap-1.5 text-sm">
            <input type="checkbox" checked={chosen.has(t.id)} onChange={() => onToggle(t.id)} className="h-4 w-4 accent-brand-600" />
            <TagChip name={t.name} color={t.color} />
          </label>
        </li>
      ))}
    </ul>
  );
}

/** The share page's QR code, collapsed until asked for (its image is then fetched). */
export function PostQr({ post }: { post: Post }) {
  return (
    <details className="rounded-lg border border-zinc-200 p-3 dark:border-zinc-800">
      <summary className="cursor-pointer text-sm font-medium">QR code</summary>
      <div className="mt-3">
        <QrCode path={`/api/posts/${encodeURIComponent(post.code)}/qr`} target={post.url} />
      </div>
    </details>
  );
}
