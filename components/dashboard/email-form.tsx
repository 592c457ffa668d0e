"use client";
/**
 * Settings → Email address (docs/web-auth.md, "Email address"): the new address and the
 * password (or a code). With mail configured the server mails a link to the new address and
 * nothing changes until it is followed.
 */
import { useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { api, type OwnAccount } from "./api";
import { Field } from "../field";
import { input, muted, secondaryButton } from "./ui";

const isCode = (proof: string): boolean => /^\d{6}$/.test(proof) || /^[a-z0-9]{4}(-?[a-z0-9]{4}){3}$/i.test(proof);

export function EmailForm({ user }: { user: OwnAccount }) {
  const queryClient = useQueryClient();
  const ids = { email: useId(), proof: useId() };
  const [result, setResult] = useState<{ text: string; error: boolean } | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const proof = String(data.get("proof") ?? "").trim();
    setBusy(true);
    setResult(null);
    try {
      const body = { email: String(data.get("email") ?? ""), ...(isCode(proof) ? { code: proof } : { password: proof }) };
      const reply = await api<{ email: string | null; pending_email: string | null }>("/relay/users/@me/email", {
        method: "POST",
        body: JSON.stringify(body),
      });
      form.reset();
      if (reply.pending_email) {
        setResult({ text: `A link is on its way to ${reply.pending_email}; the address changes when you follow it.`, error: false });
      } else {
        setResult({ text: "Email address changed.", error: false });
        await queryClient.invalidateQueries({ queryKey: ["relay-me"] });
      }
    } catch (error) {
      setResult({ text: (error as Error).message, error: true });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} className="grid max-w-md gap-3">
      <p className={muted}>Now: {user.email ?? "none"}. Password-reset links go to this address.</p>
      <Field id={ids.email} label="New email address">
        <input id={ids.email} name="email" type="email" autoComplete="email" required maxLength={254} className={input} />
      </Field>
      <Field id={ids.proof} label="Password (or a code from your app)">
        <input id={ids.proof} name="proof" type="password" autoComplete="current-password" required className={input} />
      </Field>
      <div>
        <button type="submit" disabled={busy} className={secondaryButton}>
          Change email address
        </button>
      </div>
      {result && (
        <p role={result.error ? "alert" : "status"} className={result.error ? "text-sm text-red-600 dark:text-red-400" : muted}>
          {result.text}
        </p>
      )}
    </form>
  );
}
