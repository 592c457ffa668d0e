"use client";
/**
 * Settings → Password (docs/web-auth.md, "Passwords"): the current password (or, for an
 * account without one, a code from the authenticator app) and the new one, twice. Every
 * other session ends; this browser stays signed in.
 */
import { useId, useState, type FormEvent } from "react";
import { api } from "./api";
import { Field } from "../field";
import { input, muted, primaryButton } from "./ui";

/** Six digits or a recovery code are codes; anything else is the current password. */
const isCode = (proof: string): boolean => /^\d{6}$/.test(proof) || /^[a-z0-9]{4}(-?[a-z0-9]{4}){3}$/i.test(proof);

export function PasswordForm() {
  const ids = { current: useId(), next: useId(), repeat: useId() };
  const [result, setResult] = useState<{ text: string; error: boolean } | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const proof = String(data.get("current") ?? "").trim();
    const next = String(data.get("next") ?? "");
    if (next !== String(data.get("repeat") ?? "")) {
      setResult({ text: "The two new passwords are not the same.", error: true });
      return;
    }
    setBusy(true);
    setResult(null);
    try {
      const body = { ...(isCode(proof) ? { code: proof } : { password: proof }), new_password: next };
      const reply = await api<{ signed_out: number }>("/relay/auth/password", { method: "POST", body: JSON.stringify(body) });
      form.reset();
      const others = reply.signed_out === 1 ? "1 other session was" : `${reply.signed_out} other sessions were`;
      setResult({ text: `Password changed. ${others} signed out.`, error: false });
    } catch (error) {
      setResult({ text: (error as Error).message, error: true });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} className="grid max-w-md gap-3">
      <Field id={ids.current} label="Current password" hint="No password yet (GitHub, OpenID)? A code from your authenticator app.">
        <input id={ids.current} name="current" type="password" autoComplete="current-password" required className={input} />
      </Field>
      <Field id={ids.next} label="New password" hint="At least 8 characters. Every other session is signed out.">
        <input id={ids.next} name="next" type="password" autoComplete="new-password" minLength={8} required className={input} />
      </Field>
      <Field id={ids.repeat} label="New password again">
        <input id={ids.repeat} name="repeat" type="password" autoComplete="new-password" required className={input} />
      </Field>
      <div>
        <button type="submit" disabled={busy} className={primaryButton}>
          Change password
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
