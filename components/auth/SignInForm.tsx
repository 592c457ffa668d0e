"use client";

import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { safeRedirect } from "./safe-redirect";
import { inputClass, labelClass, primaryButtonClass, secondaryButtonClass } from "./styles";

export interface SignInFormProps {
  callbackUrl: string | null;
  initialError: string | null;
  providers: { id: string; name: string }[];
}

export function SignInForm({ callbackUrl, initialError, providers }: SignInFormProps) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(initialError);
  const [pending, setPending] = useState(false);
  const target = safeRedirect(callbackUrl);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    const result = await signIn("credentials", {
      login: String(form.get("login") ?? ""),
      password: String(form.get("password") ?? ""),
      redirect: false,
    });
    if (!result || result.error) {
      setPending(false);
      setError(result?.error && result.error !== "CredentialsSignin" ? result.error : "Wrong username, email or password.");
      return;
    }
    router.replace(target);
    router.refresh();
  }

  return (
    <div className="space-y-6">
      <form onSubmit={submit} className="space-y-4" aria-describedby={error ? "signin-error" : undefined}>
        <div className="space-y-1">
          <label htmlFor="login" className={labelClass}>
            Username or email
          </label>
          <input id="login" name="login" autoComplete="username" required className={inputClass} />
        </div>
        <div className="space-y-1">
          <label htmlFor="password" className={labelClass}>
            Password
          </label>
          <input id="password" name="password" type="password" autoComplete="current-password" required className={inputClass} />
        </div>
        {error && (
          <p id="signin-error" role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-700 dark:bg-red-950 dark:text-red-300">
            {error}
          </p>
        )}
        <button type="submit" disabled={pending} className={primaryButtonClass}>
          {pending ? "Signing in…" : "Sign in"}
        </button>
      </form>
      {providers.length > 0 && (
        <div className="space-y-2">
          <p className="text-center text-sm text-zinc-500 dark:text-zinc-400">or</p>
          {providers.map((provider) => (
            <button key={provider.id} type="button" className={secondaryButtonClass} onClick={() => void signIn(provider.id, { callbackUrl: target })}>
              Continue with {provider.name}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
