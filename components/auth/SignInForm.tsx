"use client";
/**
 * The sign-in form: password, then (accounts with two-factor sign-in) a code from the
 * authenticator app or a recovery code; or a passkey. docs/two-factor.md, docs/passkeys.md.
 */
import { startAuthentication } from "@simplewebauthn/browser";
import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { safeRedirect } from "./safe-redirect";
import { inputClass, labelClass, primaryButtonClass, secondaryButtonClass } from "./styles";

/** The prefix of the error that carries the second step's ticket (lib/web/auth-options.ts). */
const TWO_FACTOR_PREFIX = "two-factor:";

export interface SignInFormProps {
  callbackUrl: string | null;
  initialError: string | null;
  /** Set when an OAuth sign-in came back needing the second step. */
  initialTicket: string | null;
  providers: { id: string; name: string }[];
}

function ErrorLine({ error }: { error: string | null }) {
  if (!error) return null;
  return (
    <p id="signin-error" role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-700 dark:bg-red-950 dark:text-red-300">
      {error}
    </p>
  );
}

export function SignInForm({ callbackUrl, initialError, initialTicket, providers }: SignInFormProps) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(initialError);
  const [pending, setPending] = useState(false);
  const [ticket, setTicket] = useState<string | null>(initialTicket);
  const target = safeRedirect(callbackUrl);

  const done = () => {
    router.replace(target);
    router.refresh();
  };

  async function submitPassword(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    const result = await signIn("credentials", {
      login: String(form.get("login") ?? ""),
      password: String(form.get("password") ?? ""),
      redirect: false,
    });
    setPending(false);
    if (result?.error?.startsWith(TWO_FACTOR_PREFIX)) {
      setTicket(result.error.slice(TWO_FACTOR_PREFIX.length));
      return;
    }
    if (!result || result.error) {
      setError(result?.error && result.error !== "CredentialsSignin" ? result.error : "Wrong username, email or password.");
      return;
    }
    done();
  }

  async function submitCode(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    const result = await signIn("two-factor", { ticket: ticket ?? "", code: String(form.get("code") ?? ""), redirect: false });
    setPending(false);
    if (!result || result.error) {
      setError(result?.error && result.error !== "CredentialsSignin" ? result.error : "That code is not right.");
      return;
    }
    done();
  }

  async function signInWithPasskey() {
    setError(null);
    setPending(true);
    try {
      const reply = await fetch("/relay/auth/passkey-login/options", { method: "POST" });
      const body = (await reply.json()) as {
        options?: Parameters<typeof startAuthentication>[0]["optionsJSON"];
        error?: { message: string };
      };
      if (!reply.ok || !body.options) throw new Error(body.error?.message ?? "Passkey sign-in is not available right now.");
      const response = await startAuthentication({ optionsJSON: body.options });
      const result = await signIn("passkey", { response: JSON.stringify(response), redirect: false });
      if (!result || result.error)
        throw new Error(result?.error && result.error !== "CredentialsSignin" ? result.error : "That passkey was not recognised.");
      done();
    } catch (e) {
      const message = (e as Error).name === "NotAllowedError" ? "The passkey sign-in was cancelled." : (e as Error).message;
      setError(message);
    } finally {
      setPending(false);
    }
  }

  if (ticket) {
    return (
      <form onSubmit={submitCode} className="space-y-4" aria-describedby={error ? "signin-error" : undefined}>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">This account uses two-factor sign-in.</p>
        <div className="space-y-1">
          <label htmlFor="code" className={labelClass}>
            Authentication code
          </label>
          <input
            id="code"
            name="code"
            autoComplete="one-time-code"
            autoFocus
            required
            maxLength={64}
            className={inputClass}
            aria-describedby="code-help"
          />
          <p id="code-help" className="text-xs text-zinc-500">
            The 6-digit code from your authenticator app, or one of your recovery codes.
          </p>
        </div>
        <ErrorLine error={error} />
        <button type="submit" disabled={pending} className={primaryButtonClass}>
          {pending ? "Checking…" : "Verify"}
        </button>
        <button
          type="button"
          className={secondaryButtonClass}
          onClick={() => {
            setTicket(null);
            setError(null);
          }}
        >
          Start over
        </button>
      </form>
    );
  }

  return (
    <div className="space-y-6">
      <form onSubmit={submitPassword} className="space-y-4" aria-describedby={error ? "signin-error" : undefined}>
        <div className="space-y-1">
          <label htmlFor="login" className={labelClass}>
            Username or email
          </label>
          <input id="login" name="login" autoComplete="username webauthn" required className={inputClass} />
        </div>
        <div className="space-y-1">
          <label htmlFor="password" className={labelClass}>
            Password
          </label>
          <input id="password" name="password" type="password" autoComplete="current-password" required className={inputClass} />
        </div>
        <ErrorLine error={error} />
        <button type="submit" disabled={pending} className={primaryButtonClass}>
          {pending ? "Signing in…" : "Sign in"}
        </button>
      </form>
      <div className="space-y-2">
        <p className="text-center text-sm text-zinc-500 dark:text-zinc-400">or</p>
        <button type="button" className={secondaryButtonClass} disabled={pending} onClick={() => void signInWithPasskey()}>
          Use a passkey
        </button>
        {providers.map((provider) => (
          <button
            key={provider.id}
            type="button"
            className={secondaryButtonClass}
            onClick={() => void signIn(provider.id, { callbackUrl: target })}
          >
            Continue with {provider.name}
          </button>
        ))}
      </div>
    </div>
  );
}
