"use client";

import { useState } from "react";

/** Copies `value` to the clipboard and says so for two seconds (announced to screen readers). */
export function CopyButton({ value, label, className }: { value: string; label: string; className?: string }) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
    } catch {
      // No clipboard permission (http, old browser): select-and-copy through a prompt.
      window.prompt("Copy this link:", value);
      return;
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 2000);
  }
  return (
    <button type="button" onClick={() => void copy()} className={className} data-copy-value={value}>
      <span aria-live="polite">{copied ? "Copied!" : label}</span>
    </button>
  );
}
