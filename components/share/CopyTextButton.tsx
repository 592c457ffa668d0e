"use client";

import { useState } from "react";

/**
 * Copies the text of the element `targetId` (a text post's code block). The text is not
 * passed as a prop: it would travel twice in the page. Without script, the raw link beside
 * it serves the same text.
 */
export function CopyTextButton({ targetId, className }: { targetId: string; className?: string }) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    const text = document.getElementById(targetId)?.textContent ?? "";
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      return;
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 2000);
  }
  return (
    // data-copy-target: the same copy without React (lib/server/share-islands.ts).
    <button type="button" onClick={() => void copy()} className={className} data-copy-target={targetId}>
      <span aria-live="polite">{copied ? "Copied!" : "Copy"}</span>
    </button>
  );
}
