"use client";
/** The selection bar's folder actions: add the selected posts to a folder, or take them out (POST /api/posts/batch, docs/folders.md). */
import { useId, useState } from "react";
import { useFolders } from "./folders";
import type { BatchAction } from "./gallery-batch";
import { input, secondaryButton } from "./ui";

export function FolderActions({ busy, onApply }: { busy: boolean; onApply: (action: BatchAction) => void }) {
  const id = useId();
  const folders = useFolders().data ?? [];
  const [chosen, setChosen] = useState("");
  const folder = folders.find((f) => f.id === chosen) ?? folders[0];
  if (!folder) return null;
  const apply = (action: "folder_add" | "folder_remove") => onApply({ action, folder: folder.id, name: folder.name });
  return (
    <>
      <label htmlFor={id} className="sr-only">
        Folder for the selected posts
      </label>
      <select id={id} className={`${input} w-auto`} value={folder.id} onChange={(e) => setChosen(e.target.value)}>
        {folders.map((f) => (
          <option key={f.id} value={f.id}>
            {f.name}
          </option>
        ))}
      </select>
      <button type="button" className={secondaryButton} disabled={busy} onClick={() => apply("folder_add")}>
        Add to folder
      </button>
      <button type="button" className={secondaryButton} disabled={busy} onClick={() => apply("folder_remove")}>
        Remove from folder
      </button>
    </>
  );
}
