"use client";
/** The sign-in form's steps and their requests: password, the second step's code, a passkey. */
import { startAuthentication } from "@simplewebauthn/browser";
import { type SignInResponse, signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { safeRedirect } from "./safe-redirect";

/** The prefix of the error that carries the second step's ticket (lib/web/sign-in/two-factor.ts). */
const TWO_FACTOR_PREFIX = "two-factor:";

/** The message of a failed sign-in, or null when it succeeded. NextAuth's generic "CredentialsSignin" reads as `fallback`. */
function failure(result: SignInResponse | undefined, fallback: string): string | null {
  if (result && !result.error) return null;
  return result?.error && result.error !== "CredentialsSignin" ? result.error : fallback;
}

/** The passkey ceremony (docs/passkeys.md): Relay's options, the authenticator's answer, then NextAuth's passkey provider. */
async function passkeySignIn(): Promise<SignInResponse | undefined> {
  const reply = await fetch("/relay/auth/passkey-login/options", { method: "POST" });
  const body = (await reply.json()) as {
    options?: Parameters<typeof startAuthentication>[0]["optionsJSON"];
    error?: { message: string };
  };
  if (!reply.ok || !body.options) throw new Error(body.error?.message ?? "Passkey sign-in is not available right now.");
  const response = await startAuthentication({ optionsJSON: body.options });
  return signIn("passkey", { response: JSON.stringify(response), redirect: false });
}

export interface SignIn {
  error: string | null;
  pending: boolean;
  /** Set while the second step (a code) is asked for. */
  ticket: string | null;
  /** Where the browser goes once signed in (the callback URL, when it is this site's). */
  target: string;
  submitPassword: (event: FormEvent<HTMLFormElement>) => Promise<void>;
  submitCode: (event: FormEvent<HTMLFormElement>) => Promise<void>;
  signInWithPasskey: () => Promise<void>;
  /** Back from the code step to the password. */
  startOver: () => void;
}

export function useSignIn({
  callbackUrl,
  initialError,
  initialTicket,
}: {
  callbackUrl: string | null;
  initialError: string | null;
  initialTicket: string | null;
}): SignIn {
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
    const message = failure(result, "Wrong username, email or password.");
    if (message) return setError(message);
    done();
  }

  async function submitCode(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    const result = await signIn("two-factor", { ticket: ticket ?? "", code: String(form.get("code") ?? ""), redirect: false });
    setPending(false);
    const message = failure(result, "That code is not right.");
    if (message) return setError(message);
    done();
  }

  async function signInWithPasskey() {
    setError(null);
    setPending(true);
    try {
      const message = failure(await passkeySignIn(), "That passkey was not recognised.");
      if (message) throw new Error(message);
      done();
    } catch (e) {
      const message = (e as Error).name === "NotAllowedError" ? "The passkey sign-in was cancelled." : (e as Error).message;
      setError(message);
    } finally {
      setPending(false);
    }
  }

  const startOver = () => {
    setTicket(null);
    setError(null);
  };

  return { error, pending, ticket, target, submitPassword, submitCode, signInWithPasskey, startOver };
}
