"use client";
/**
 * The settings forms that prove who is asking with the password or a code (e-mail address,
 * password): one request at a time, the form cleared on success, and the outcome (or the
 * refusal) said under the button.
 */
import { type FormEvent, type ReactNode, useState } from "react";
import { muted } from "./ui";

/** What the last submission came to: said politely, or as an alert. */
export type Result = { text: string; error: boolean } | null;

/** Six digits or a recovery code are codes; anything else is the password. */
export const proofBody = (proof: string): { code: string } | { password: string } =>
  /^\d{6}$/.test(proof) || /^[a-z0-9]{4}(-?[a-z0-9]{4}){3}$/i.test(proof) ? { code: proof } : { password: proof };

export function ResultMessage({ result }: { result: Result }) {
  if (!result) return null;
  return (
    <p role={result.error ? "alert" : "status"} className={result.error ? "text-sm text-red-600 dark:text-red-400" : muted}>
      {result.text}
    </p>
  );
}

/**
 * A form whose `send` posts what the fields hold and returns the message to show; what it
 * throws is shown as the refusal, and the fields are kept.
 */
export function AccountForm({
  send,
  submit,
  buttonClass,
  children,
}: {
  send: (data: FormData) => Promise<string>;
  submit: string;
  buttonClass: string;
  children: ReactNode;
}) {
  const [result, setResult] = useState<Result>(null);
  const [busy, setBusy] = useState(false);
  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    setBusy(true);
    setResult(null);
    try {
      const text = await send(new FormData(form));
      form.reset();
      setResult({ text, error: false });
    } catch (error) {
      setResult({ text: (error as Error).message, error: true });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={onSubmit} className="grid max-w-md gap-3">
      {children}
      <div>
        <button type="submit" disabled={busy} className={buttonClass}>
          {submit}
        </button>
      </div>
      <ResultMessage result={result} />
    </form>
  );
}
