"use client";
/**
 * The sign-in form: password, then (accounts with two-factor sign-in) a code from the
 * authenticator app or a recovery code; or a passkey. docs/two-factor.md, docs/passkeys.md.
 */
import { signIn } from "next-auth/react";
import { Field } from "@/components/field";
import { inputClass, primaryButtonClass, secondaryButtonClass } from "./styles";
import { type SignIn, useSignIn } from "./use-sign-in";

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
  const signingIn = useSignIn({ callbackUrl, initialError, initialTicket });
  if (signingIn.ticket) return <CodeStep signingIn={signingIn} />;
  return (
    <div className="space-y-6">
      <PasswordStep signingIn={signingIn} />
      <OtherWays signingIn={signingIn} providers={providers} />
    </div>
  );
}

/** The second step: a code from the authenticator app, or a recovery code. */
function CodeStep({ signingIn: { error, pending, submitCode, startOver } }: { signingIn: SignIn }) {
  return (
    <form onSubmit={submitCode} className="space-y-4" aria-describedby={error ? "signin-error" : undefined}>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">This account uses two-factor sign-in.</p>
      <Field id="code" label="Authentication code">
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
        <p id="code-help" className="text-xs text-zinc-500 dark:text-zinc-400">
          The 6-digit code from your authenticator app, or one of your recovery codes.
        </p>
      </Field>
      <ErrorLine error={error} />
      <button type="submit" disabled={pending} className={primaryButtonClass}>
        {pending ? "Checking…" : "Verify"}
      </button>
      <button type="button" className={secondaryButtonClass} onClick={startOver}>
        Start over
      </button>
    </form>
  );
}

function PasswordStep({ signingIn: { error, pending, submitPassword } }: { signingIn: SignIn }) {
  return (
    <form onSubmit={submitPassword} className="space-y-4" aria-describedby={error ? "signin-error" : undefined}>
      <Field id="login" label="Username or email">
        <input id="login" name="login" autoComplete="username webauthn" required className={inputClass} />
      </Field>
      <Field id="password" label="Password">
        <input id="password" name="password" type="password" autoComplete="current-password" required className={inputClass} />
      </Field>
      <p className="text-right text-sm">
        <a href="/forgot-password" className="text-brand-600 hover:underline dark:text-brand-400">
          Forgot your password?
        </a>
      </p>
      <ErrorLine error={error} />
      <button type="submit" disabled={pending} className={primaryButtonClass}>
        {pending ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}

/** A passkey, or the OAuth providers the site has. */
function OtherWays({
  signingIn: { pending, signInWithPasskey, target },
  providers,
}: {
  signingIn: SignIn;
  providers: SignInFormProps["providers"];
}) {
  return (
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
  );
}
