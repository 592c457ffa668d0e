"use client";
/**
 * Folders (docs/folders.md): create, rename, make public or private, delete (posts stay),
 * open the public page, and show a folder's posts in the gallery. Through `/api/folders`.
 */
import { useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useState } from "react";
import { countOf } from "@/components/plural";
import { api } from "./api";
import { CopyButton } from "./copy-button";
import { type Folder, useFolders } from "./folders";
import { GuestUploadSettings } from "./guest-upload-settings";
import { CreateForm, ItemList, PanelHeading, type Run, useRun } from "./list-panel";
import { card, dangerButton, input, label, muted, primaryButton, secondaryButton } from "./ui";

export function FoldersPanel() {
  const queryClient = useQueryClient();
  const query = useFolders();
  const { error, busy, run } = useRun(() => {
    void queryClient.invalidateQueries({ queryKey: ["folders"] });
    void queryClient.invalidateQueries({ queryKey: ["posts"] });
  });

  return (
    <div className="space-y-6">
      <PanelHeading title="Folders" error={error}>
        Sort posts into folders from the gallery (select posts, then “Add to folder”). A public folder has a page anyone with its link can
        see; private posts never show there.
      </PanelHeading>
      <NewFolderForm busy={busy} run={run} />
      <ItemList items={query.data ?? null} error={query.error} empty="No folders yet." label="Folders">
        {(folder) => <FolderRow key={folder.id} folder={folder} busy={busy} run={run} />}
      </ItemList>
    </div>
  );
}

function NewFolderForm({ busy, run }: { busy: boolean; run: Run }) {
  const [name, setName] = useState("");
  const [isPublic, setPublic] = useState(false);
  const ids = { name: useId(), public: useId() };
  const submit = () =>
    void run(async () => {
      await api("/api/folders", { method: "POST", body: JSON.stringify({ name, privacy: isPublic ? "public" : "private" }) });
      setName("");
    });
  return (
    <CreateForm label="New folder" submit="Create" busy={busy} onSubmit={submit} layout="flex flex-col gap-3 sm:flex-row sm:items-end">
      <div className="flex-1">
        <label htmlFor={ids.name} className={label}>
          Folder name
        </label>
        <input id={ids.name} className={input} required maxLength={64} value={name} onChange={(e) => setName(e.target.value)} />
      </div>
      <label htmlFor={ids.public} className="flex items-center gap-2 text-sm">
        <input id={ids.public} type="checkbox" checked={isPublic} onChange={(e) => setPublic(e.target.checked)} />
        Public
      </label>
    </CreateForm>
  );
}

function FolderRow({ folder, busy, run }: { folder: Folder; busy: boolean; run: Run }) {
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(folder.name);
  const nameId = useId();
  const patch = (body: object) =>
    run(async () => void (await api(`/api/folders/${folder.id}`, { method: "PATCH", body: JSON.stringify(body) })));
  const remove = () =>
    run(async () => {
      if (!window.confirm(`Delete the folder “${folder.name}”? Its posts stay in your gallery.`)) return;
      await api(`/api/folders/${folder.id}`, { method: "DELETE" });
    });

  return (
    <li className={`${card} space-y-2`} data-folder={folder.name}>
      {renaming ? (
        <form
          className="flex flex-wrap items-end gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            void patch({ name }).then(() => setRenaming(false));
          }}
        >
          <div className="flex-1">
            <label htmlFor={nameId} className={label}>
              New name of {folder.name}
            </label>
            <input id={nameId} className={input} required maxLength={64} value={name} onChange={(e) => setName(e.target.value)} />
          </div>
          <button type="submit" className={primaryButton} disabled={busy}>
            Save
          </button>
          <button type="button" className={secondaryButton} onClick={() => setRenaming(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <p className="flex flex-wrap items-center gap-2">
          <span className="break-all font-medium">{folder.name}</span>
          <span className="rounded bg-zinc-200 px-1.5 py-0.5 text-xs dark:bg-zinc-700">{folder.privacy}</span>
          <span className={muted}>{countOf(folder.post_count, "post")}</span>
        </p>
      )}
      {folder.url && (
        <p className="flex flex-wrap items-center gap-2 text-sm">
          <a href={folder.url} className="break-all text-brand-700 hover:underline dark:text-brand-400">
            {folder.url}
          </a>
          <CopyButton value={folder.url} />
        </p>
      )}
      <GuestUploadSettings folder={folder} busy={busy} run={run} />
      <div className="flex flex-wrap gap-2">
        <Link href={`/dashboard?folder=${encodeURIComponent(folder.id)}`} className={secondaryButton}>
          Show posts
        </Link>
        <button type="button" className={secondaryButton} onClick={() => setRenaming(true)} disabled={busy}>
          Rename
        </button>
        <button
          type="button"
          className={secondaryButton}
          disabled={busy}
          onClick={() => void patch({ privacy: folder.privacy === "public" ? "private" : "public" })}
        >
          {folder.privacy === "public" ? "Make private" : "Make public"}
        </button>
        <button
          type="button"
          className={dangerButton}
          disabled={busy}
          onClick={() => void remove()}
          aria-label={`Delete folder ${folder.name}`}
        >
          Delete
        </button>
      </div>
    </li>
  );
}
