"use client";
/**
 * The tag manager (docs/tags.md): create a tag (name and colour), rename or recolour it, see
 * how many posts carry it (a link to the gallery filtered by it), delete it. Everything goes
 * through `/api/tags` with the session cookie, as other clients do.
 */
import { useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { countOf } from "@/components/plural";
import type { TagReply } from "@/lib/presenters/tags";
import { api, type Reply } from "./api";
import { CreateForm, ItemList, PanelHeading, type Run, useRun } from "./list-panel";
import { TagChip } from "./tag-chip";
import { type Tag, useTags } from "./tags";
import { card, dangerButton, input, label, muted, secondaryButton } from "./ui";

/** A new tag's colour: the server's default slate. */
const DEFAULT_COLOR = "#64748b";

export function TagsPanel() {
  const queryClient = useQueryClient();
  const tags = useTags();
  // Posts show tags by name and colour: their listing follows every change.
  const { error, busy, run } = useRun(() => {
    void queryClient.invalidateQueries({ queryKey: ["tags"] });
    void queryClient.invalidateQueries({ queryKey: ["posts"] });
  });
  return (
    <div className="space-y-6">
      <PanelHeading title="Tags" error={error}>
        Label your posts with your own tags and find them again in the gallery. Only you ever see your tags.
      </PanelHeading>
      <NewTagForm busy={busy} run={run} />
      <ItemList items={tags.data ?? null} error={tags.error} empty="No tags yet." label="Tags">
        {(tag) => <TagRow key={tag.id} tag={tag} busy={busy} run={run} />}
      </ItemList>
    </div>
  );
}

function NewTagForm({ busy, run }: { busy: boolean; run: Run }) {
  const [name, setName] = useState("");
  const [color, setColor] = useState(DEFAULT_COLOR);
  const ids = { name: useId(), color: useId() };
  const submit = () =>
    void run(async () => {
      await api<Reply<typeof TagReply>>("/api/tags", { method: "POST", body: JSON.stringify({ name, color }) });
      setName("");
    });
  return (
    <CreateForm
      label="New tag"
      submit="Create tag"
      busy={busy}
      onSubmit={submit}
      layout="grid gap-3 sm:grid-cols-[1fr_auto_auto] sm:items-end"
    >
      <TagFields ids={ids} name={name} color={color} onName={setName} onColor={setColor} />
    </CreateForm>
  );
}

function TagRow({ tag, busy, run }: { tag: Tag; busy: boolean; run: Run }) {
  const [editing, setEditing] = useState(false);
  const remove = () =>
    void run(async () => {
      if (!window.confirm(`Delete the tag "${tag.name}"? It comes off every post; the posts stay.`)) return;
      await api(`/api/tags/${encodeURIComponent(tag.id)}`, { method: "DELETE" });
    });
  return (
    <li className={`${card} flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-between`} data-tag-row={tag.name}>
      {editing ? (
        <EditTag tag={tag} busy={busy} run={run} onDone={() => setEditing(false)} />
      ) : (
        <>
          <div className="min-w-0 space-y-1">
            <TagChip name={tag.name} color={tag.color} />
            <p className={muted}>
              <a href={`/dashboard?tag=${encodeURIComponent(tag.id)}`} className="text-brand-700 hover:underline dark:text-brand-400">
                {countOf(tag.post_count, "post")}
              </a>
            </p>
          </div>
          <div className="flex shrink-0 gap-2">
            <button type="button" className={secondaryButton} onClick={() => setEditing(true)} aria-label={`Edit tag ${tag.name}`}>
              Edit
            </button>
            <button type="button" className={dangerButton} disabled={busy} onClick={remove} aria-label={`Delete tag ${tag.name}`}>
              Delete
            </button>
          </div>
        </>
      )}
    </li>
  );
}

function EditTag({ tag, busy, run, onDone }: { tag: Tag; busy: boolean; run: Run; onDone: () => void }) {
  const [name, setName] = useState(tag.name);
  const [color, setColor] = useState(tag.color);
  const ids = { name: useId(), color: useId() };
  const save = () =>
    void run(async () => {
      await api(`/api/tags/${encodeURIComponent(tag.id)}`, { method: "PATCH", body: JSON.stringify({ name, color }) });
      onDone();
    });
  return (
    <form
      className="grid w-full gap-3 sm:grid-cols-[1fr_auto_auto_auto] sm:items-end"
      aria-label={`Edit tag ${tag.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        save();
      }}
    >
      <TagFields ids={ids} name={name} color={color} onName={setName} onColor={setColor} />
      <button type="submit" className={secondaryButton} disabled={busy}>
        Save
      </button>
      <button type="button" className={secondaryButton} onClick={onDone}>
        Cancel
      </button>
    </form>
  );
}

/** A tag's name and colour, as both the create form and a row's edit form ask for them. */
function TagFields(props: {
  ids: { name: string; color: string };
  name: string;
  color: string;
  onName: (name: string) => void;
  onColor: (color: string) => void;
}) {
  const { ids } = props;
  return (
    <>
      <div>
        <label htmlFor={ids.name} className={label}>
          Tag name
        </label>
        <input id={ids.name} className={input} required maxLength={32} value={props.name} onChange={(e) => props.onName(e.target.value)} />
      </div>
      <div>
        <label htmlFor={ids.color} className={label}>
          Colour
        </label>
        <input
          id={ids.color}
          type="color"
          className="h-10 w-16 rounded border border-zinc-300 dark:border-zinc-700"
          value={props.color}
          onChange={(e) => props.onColor(e.target.value)}
        />
      </div>
    </>
  );
}
