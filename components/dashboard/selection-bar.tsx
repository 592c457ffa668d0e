"use client";
/** The bar over the gallery while posts are selected. */
import { type ReactNode, useId } from "react";
import type { Privacy } from "./api";
import { privaciesFrom } from "./privacies";
import { PrivacySelect } from "./privacy-select";
import { dangerButton, secondaryButton } from "./ui";

/** The actions on the selected posts. The chosen privacy stays with the gallery while the bar is hidden. */
export function SelectionBar({
  count,
  busy,
  bulkPrivacy,
  onBulkPrivacy,
  onSelectAll,
  onClear,
  onSetPrivacy,
  onDelete,
  children,
}: {
  count: number;
  busy: boolean;
  bulkPrivacy: Privacy;
  onBulkPrivacy: (privacy: Privacy) => void;
  onSelectAll: () => void;
  onClear: () => void;
  onSetPrivacy: () => void;
  onDelete: () => void;
  /** More actions (the folder ones). */
  children?: ReactNode;
}) {
  const privacyId = useId();
  return (
    <div className="sticky top-2 z-10 flex items-center justify-between gap-3 rounded-lg border border-zinc-200 bg-white/95 p-3 shadow-sm dark:border-zinc-800 dark:bg-zinc-900/95">
      <span className="text-sm">{count} selected</span>
      <div className="flex flex-wrap items-center gap-2">
        <button type="button" className={secondaryButton} onClick={onSelectAll}>
          Select all
        </button>
        <button type="button" className={secondaryButton} onClick={onClear}>
          Clear
        </button>
        <PrivacySelect
          id={privacyId}
          label="New privacy of the selected posts"
          value={bulkPrivacy}
          choices={privaciesFrom("private")}
          onChange={onBulkPrivacy}
        />
        <button type="button" className={secondaryButton} disabled={busy} onClick={onSetPrivacy}>
          Set privacy
        </button>
        {children}
        <button type="button" className={dangerButton} disabled={busy} onClick={onDelete}>
          Delete selected
        </button>
      </div>
    </div>
  );
}
