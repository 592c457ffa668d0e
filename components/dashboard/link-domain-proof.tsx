"use client";
/**
 * The link domain's DNS proof in Settings (docs/link-domains.md): the TXT record to add,
 * and a button that asks the server to look for it. Share links use the domain only once
 * the record was seen.
 */
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { OwnAccountReply } from "@/lib/presenters/users";
import { api, type OwnAccount, type Reply } from "./api";
import { CopyButton } from "./copy-button";
import { muted, secondaryButton } from "./ui";

export function LinkDomainProof({ user }: { user: OwnAccount }) {
  const queryClient = useQueryClient();
  const [result, setResult] = useState<{ text: string; error: boolean } | null>(null);
  const [busy, setBusy] = useState(false);
  const proof = user.link_domain_proof;
  if (!user.link_domain || !proof) return null;
  if (user.link_domain_verified) {
    return (
      <p role="status" className={muted}>
        {user.link_domain} is proven: share links use it.
      </p>
    );
  }
  const check = async () => {
    setBusy(true);
    setResult(null);
    try {
      const reply = await api<Reply<typeof OwnAccountReply>>("/relay/users/@me/link-domain/verify", { method: "POST" });
      queryClient.setQueryData(["relay-me"], reply.user);
    } catch (error) {
      setResult({ text: (error as Error).message, error: true });
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="space-y-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-700 dark:bg-amber-950/40">
      <p>
        Not in use yet: prove that {user.link_domain} is yours with this DNS TXT record, then check it. Until then share links keep the
        default address.
      </p>
      <dl className="grid gap-1 sm:grid-cols-[auto_1fr] sm:gap-x-3">
        <dt className="font-medium">Name</dt>
        <dd className="break-all font-mono" data-testid="link-domain-proof-name">
          {proof.name}
        </dd>
        <dt className="font-medium">Value</dt>
        <dd className="flex flex-wrap items-center gap-2">
          <code className="break-all font-mono" data-testid="link-domain-proof-value">
            {proof.value}
          </code>
          <CopyButton value={proof.value} label="Copy value" />
        </dd>
      </dl>
      <button type="button" className={secondaryButton} disabled={busy} onClick={() => void check()}>
        Check DNS
      </button>
      {result && (
        <p role="alert" className="text-red-700 dark:text-red-300">
          {result.text}
        </p>
      )}
    </div>
  );
}
