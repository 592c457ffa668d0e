"use client";
import { useState } from "react";
import { secondaryButton } from "./ui";

/** Copies `value` to the clipboard and says so (in words, for screen readers too). */
export function CopyButton({
  value,
  label = "Copy",
  title,
  className = secondaryButton,
}: {
  value: string;
  label?: string;
  /** The accessible name when the visible label is short (a card's "Direct link" names its post). */
  title?: string;
  className?: string;
}) {
  const [copied, setCopied] = useState<"yes" | "no" | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied("yes");
    } catch {
      // Clipboard access denied (insecure origin, permissions): the user can still select the text.
      setCopied("no");
    }
    setTimeout(() => setCopied(null), 2000);
  };
  return (
    <button type="button" className={className} aria-label={title} title={title} onClick={() => void copy()}>
      <span aria-live="polite">{copied === "yes" ? "Copied" : copied === "no" ? "Copy failed: select the text" : label}</span>
    </button>
  );
}
