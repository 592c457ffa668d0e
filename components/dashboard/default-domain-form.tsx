"use client";
/**
 * The domain new links are built on (docs/domains.md): shown only where the operator lists
 * other domains (DOMAINS). Saved through Relay's PATCH /users/@me `default_domain`.
 */
import { useState } from "react";
import type { OwnAccountReply } from "@/lib/presenters/users";
import type { FirstAccount } from "@/lib/web/dashboard/settings";
import { api, type Reply } from "./api";
import { input, label, muted } from "./ui";

const SERVES_TEXT: Record<string, string> = { pages: "share pages", files: "files", links: "short links" };

export function DefaultDomainForm({ initial }: { initial: FirstAccount["domains"] }) {
  const [value, setValue] = useState(initial.default_domain ?? "");
  const [state, setState] = useState<{ pending: boolean; error: string | null; saved: boolean }>({
    pending: false,
    error: null,
    saved: false,
  });
  if (!initial.domains.some((d) => d.kind === "instance")) return null;
  const change = async (next: string) => {
    setValue(next);
    setState({ pending: true, error: null, saved: false });
    try {
      await api<Reply<typeof OwnAccountReply>>("/relay/users/@me", {
        method: "PATCH",
        body: JSON.stringify({ default_domain: next || null }),
      });
      setState({ pending: false, error: null, saved: true });
    } catch (error) {
      setState({ pending: false, error: (error as Error).message, saved: false });
    }
  };
  return (
    <div className="space-y-1">
      <label htmlFor="default-domain" className={label}>
        Domain of new links
      </label>
      <select
        id="default-domain"
        value={value}
        disabled={state.pending}
        onChange={(e) => void change(e.target.value)}
        className={`${input} sm:w-80`}
      >
        <option value="">Server default</option>
        {initial.domains.map((d) => (
          <option key={d.name} value={d.name}>
            {d.name} ({d.serves.map((s) => SERVES_TEXT[s]).join(", ")})
          </option>
        ))}
      </select>
      <p className={muted}>
        Share pages, files and short links are built on it where it serves them; an uploader may choose another with the x-mediahost-domain
        header, and each domain has its own ShareX set-up under Apps.
      </p>
      {state.saved && (
        <p role="status" className={muted}>
          Saved.
        </p>
      )}
      {state.error && (
        <p role="alert" className="text-sm text-red-600">
          {state.error}
        </p>
      )}
    </div>
  );
}
