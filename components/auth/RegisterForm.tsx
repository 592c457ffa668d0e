"use client";

import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Field } from "@/components/field";
import { inputClass, primaryButtonClass } from "./styles";

export interface RegisterFormProps {
  /** REGISTRATION=invite: an invite code is asked for. */
  needsInvite: boolean;
  /** Pre-filled from `?invite=`. */
  invite: string | null;
  /** /setup: the first administrator, with the set-up code from the server's log (docs/setup.md). */
  setup?: boolean;
}

export function RegisterForm({ needsInvite, invite, setup = false }: RegisterFormProps) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    const result = await signIn(setup ? "setup" : "register", {
      code: String(form.get("code") ?? ""),
      username: String(form.get("username") ?? ""),
      email: String(form.get("email") ?? ""),
      password: String(form.get("password") ?? ""),
      invite: String(form.get("invite") ?? ""),
      redirect: false,
    });
    if (!result || result.error) {
      setPending(false);
      setError(result?.error ?? "Something went wrong; please try again.");
      return;
    }
    router.replace(setup ? "/admin/welcome" : "/dashboard");
    router.refresh();
  }

  return (
    <form onSubmit={submit} className="space-y-4">
      {setup && (
        <Field id="code" label="Set-up code">
          <input
            id="code"
            name="code"
            required
            autoComplete="off"
            autoCapitalize="characters"
            spellCheck={false}
            placeholder="XXXX-XXXX-XXXX"
            className={`${inputClass} font-mono`}
          />
        </Field>
      )}
      <Field id="username" label="Username">
        <input
          id="username"
          name="username"
          autoComplete="username"
          required
          minLength={2}
          maxLength={32}
          pattern="[A-Za-z0-9_.\-]{2,32}"
          aria-describedby="username-help"
          className={inputClass}
        />
        <p id="username-help" className="text-xs text-zinc-500 dark:text-zinc-400">
          2 to 32 letters, digits, “_”, “.” or “-”.
        </p>
      </Field>
      <Field
        id="email"
        label={
          <>
            Email <span className="font-normal text-zinc-500 dark:text-zinc-400">(optional, lets you sign in with it)</span>
          </>
        }
      >
        <input id="email" name="email" type="email" autoComplete="email" className={inputClass} />
      </Field>
      <Field id="password" label="Password">
        <input
          id="password"
          name="password"
          type="password"
          autoComplete="new-password"
          required
          minLength={8}
          aria-describedby="password-help"
          className={inputClass}
        />
        <p id="password-help" className="text-xs text-zinc-500 dark:text-zinc-400">
          At least 8 characters.
        </p>
      </Field>
      {needsInvite && (
        <Field id="invite" label="Invite code">
          <input id="invite" name="invite" required defaultValue={invite ?? ""} className={inputClass} />
        </Field>
      )}
      {error && (
        <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-700 dark:bg-red-950 dark:text-red-300">
          {error}
        </p>
      )}
      <button type="submit" disabled={pending} className={primaryButtonClass}>
        {pending ? "Creating your account…" : setup ? "Create the administrator" : "Create account"}
      </button>
    </form>
  );
}
