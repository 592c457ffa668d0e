"use client";
/** The selection bar's tag and favourite actions (POST /api/posts/batch: tag_add, tag_remove, favorite; docs/tags.md). */
import { useId, useState } from "react";
import type { BatchAction } from "./gallery-batch";
import { useTags } from "./tags";
import { input, secondaryButton } from "./ui";

export function TagActions({ busy, onApply }: { busy: boolean; onApply: (action: BatchAction) => void }) {
  const id = useId();
  const tags = useTags().data ?? [];
  const [chosen, setChosen] = useState("");
  const tag = tags.find((t) => t.id === chosen) ?? tags[0];
  const apply = (action: "tag_add" | "tag_remove") => tag && onApply({ action, tag: tag.id, name: tag.name });
  return (
    <>
      <button type="button" className={secondaryButton} disabled={busy} onClick={() => onApply({ action: "favorite", favorite: true })}>
        Mark favourite
      </button>
      <button type="button" className={secondaryButton} disabled={busy} onClick={() => onApply({ action: "favorite", favorite: false })}>
        Unmark favourite
      </button>
      {tag && (
        <>
          <label htmlFor={id} className="sr-only">
            Tag for the selected posts
          </label>
          <select id={id} className={`${input} w-auto`} value={tag.id} onChange={(e) => setChosen(e.target.value)}>
            {tags.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
          <button type="button" className={secondaryButton} disabled={busy} onClick={() => apply("tag_add")}>
            Add tag
          </button>
          <button type="button" className={secondaryButton} disabled={busy} onClick={() => apply("tag_remove")}>
            Remove tag
          </button>
        </>
      )}
    </>
  );
}
