"use client";
/**
 * Settings of the sign-in factors: two-factor sign-in with an authenticator app (set-up
 * with a confirming code, recovery codes shown once, turning off with password or code)
 * and passkeys (add, rename, delete). Over the Relay endpoints of lib/routes/factors.ts;
 * docs/two-factor.md and docs/passkeys.md.
 */
import type { startRegistration } from "@simplewebauthn/browser";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import type {
  PasskeyList,
  Passkey as PasskeySchema,
  RecoveryCodes as RecoveryCodesReply,
  SessionConfirmed,
  TotpConfirmed,
  TotpDisabled,
  TotpSetupReply,
  TwoFactorStatusReply,
} from "@/lib/replies/factors";
import { proofBody, type Result, ResultMessage as Message } from "./account-form";
import { ApiError, api, type Reply } from "./api";
import { CopyButton } from "./copy-button";
import { Field } from "@/components/field";
import { Pending } from "./notices";
import { dangerButton, formatDate, input, label, muted, primaryButton, secondaryButton } from "./ui";

type Passkey = Reply<typeof PasskeySchema>;

function RecoveryCodes({ codes }: { codes: string[] }) {
  return (
    <div className="space-y-2 rounded-md border border-amber-300 bg-amber-50 p-3 dark:border-amber-700 dark:bg-amber-950/40">
      <p className="text-sm font-medium">
        Recovery codes: each works once, in place of a code from the app. Keep them somewhere safe; they are not shown again.
      </p>
      <ul aria-label="Recovery codes" className="grid grid-cols-2 gap-1 font-mono text-sm">
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ul>
      <CopyButton value={codes.join("\n")} label="Copy recovery codes" />
    </div>
  );
}

const PROOF_ACTIONS = {
  disable: { path: "/relay/auth/two-factor/disable", title: "Turn off two-factor sign-in" },
  "recovery-codes": { path: "/relay/auth/two-factor/recovery-codes", title: "New recovery codes" },
  // Recent confirmation (docs/security.md): enrolling or removing a factor, new keys and webhooks need it within 10 minutes.
  confirm: { path: "/relay/auth/confirm", title: "Confirm it is you" },
} as const;

/** Password or code, for turning off, for new recovery codes, and to confirm this session. */
export function ProofForm({
  action,
  onDone,
  danger,
}: {
  action: keyof typeof PROOF_ACTIONS;
  onDone: (codes?: string[]) => void;
  danger?: boolean;
}) {
  const id = useId();
  const [result, setResult] = useState<Result>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const proof = String(new FormData(event.currentTarget).get("proof") ?? "").trim();
    const body = proofBody(proof);
    setBusy(true);
    setResult(null);
    try {
      const reply = await api<Reply<typeof TotpDisabled | typeof RecoveryCodesReply | typeof SessionConfirmed>>(
        PROOF_ACTIONS[action].path,
        {
          method: "POST",
          body: JSON.stringify(body),
        },
      );
      onDone("recovery_codes" in reply ? reply.recovery_codes : undefined);
    } catch (error) {
      setResult({ text: (error as Error).message, error: true });
    } finally {
      setBusy(false);
    }
  };
  const title = PROOF_ACTIONS[action].title;
  return (
    <form onSubmit={submit} className="flex flex-wrap items-end gap-2">
      <Field id={id} label={<>Password or code ({title.toLowerCase()})</>}>
        <input id={id} name="proof" type="password" autoComplete="current-password" required className={input} />
      </Field>
      <button type="submit" disabled={busy} className={danger ? dangerButton : secondaryButton}>
        {title}
      </button>
      <Message result={result} />
    </form>
  );
}

/** The authenticator app's key while it is being set up, before a code confirms it. */
type TotpSetup = Reply<typeof TotpSetupReply>;

export function TwoFactorSettings() {
  const queryClient = useQueryClient();
  const status = useQuery({ queryKey: ["two-factor"], queryFn: () => api<Reply<typeof TwoFactorStatusReply>>("/relay/auth/two-factor") });
  const [setup, setSetup] = useState<TotpSetup | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [result, setResult] = useState<Result>(null);
  const [needsConfirmation, setNeedsConfirmation] = useState(false);
  const codeId = useId();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ["two-factor"] });

  const start = async () => {
    setResult(null);
    setCodes(null);
    try {
      setSetup(await api<TotpSetup>("/relay/auth/two-factor/totp", { method: "POST" }));
    } catch (error) {
      // Enrolling needs a recent confirmation (docs/security.md).
      setNeedsConfirmation(isConfirmationRequired(error));
      setResult({ text: (error as Error).message, error: true });
    }
  };
  const confirm = async (code: string) => {
    setResult(null);
    try {
      const reply = await api<Reply<typeof TotpConfirmed>>("/relay/auth/two-factor/totp/confirm", {
        method: "POST",
        body: JSON.stringify({ code }),
      });
      setSetup(null);
      setCodes(reply.recovery_codes);
      setResult({ text: "Two-factor sign-in is on.", error: false });
      await refresh();
    } catch (error) {
      setNeedsConfirmation(isConfirmationRequired(error));
      setResult({ text: (error as Error).message, error: true });
    }
  };

  if (!status.data) return <Pending error={status.error} />;
  const { totp_enabled: enabled, recovery_codes_left: left } = status.data;
  return (
    <div className="space-y-4">
      <p>
        Status: <strong>{enabled ? "on" : "off"}</strong>
        {enabled && <span className={muted}> · {left} recovery codes left</span>}
      </p>
      {codes && <RecoveryCodes codes={codes} />}
      {!enabled && !setup && (
        <button type="button" className={primaryButton} onClick={() => void start()}>
          Set up an authenticator app
        </button>
      )}
      {!enabled && setup && <TotpSetupForm setup={setup} codeId={codeId} onCode={(code) => void confirm(code)} />}
      {enabled && (
        <TotpOffOrNewCodes
          onNewCodes={(fresh) => {
            setCodes(fresh ?? null);
            void refresh();
          }}
          onOff={() => {
            setCodes(null);
            setResult({ text: "Two-factor sign-in is off.", error: false });
            void refresh();
          }}
        />
      )}
      <Message result={result} />
      {needsConfirmation && (
        <ProofForm
          action="confirm"
          onDone={() => {
            setNeedsConfirmation(false);
            setResult({ text: "Confirmed for 10 minutes; try again.", error: false });
          }}
        />
      )}
    </div>
  );
}

/** Set-up's second step: the key to add to the app (or its link), and the code that proves it was added. */
function TotpSetupForm({ setup, codeId, onCode }: { setup: TotpSetup; codeId: string; onCode: (code: string) => void }) {
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    onCode(String(new FormData(event.currentTarget).get("code") ?? ""));
  };
  return (
    <form onSubmit={submit} className="space-y-3">
      <p className={muted}>
        Scan the QR code with your authenticator app (Aegis, 2FAS, Google Authenticator, 1Password, …), type in the key, or open the link on
        the phone that has the app. Then enter the 6-digit code it shows.
      </p>
      {/* Drawn by the server (lib/auth/factors/qr.ts); an <img> of a data: URL runs no script. */}
      <img
        src={`data:image/svg+xml;base64,${btoa(setup.qr_svg)}`}
        alt="QR code of the authenticator app's key"
        width={180}
        height={180}
        className="rounded border border-zinc-200 bg-white dark:border-zinc-700"
      />
      <p className="flex flex-wrap items-center gap-2">
        <span className={label}>Key</span>
        <code data-testid="totp-secret" className="break-all rounded bg-zinc-100 px-2 py-1 font-mono text-sm dark:bg-zinc-800">
          {setup.secret}
        </code>
        <CopyButton value={setup.secret} label="Copy key" />
      </p>
      <p className="text-sm">
        <a href={setup.otpauth_uri} className="text-brand-600 underline dark:text-brand-400">
          Open in authenticator app
        </a>
      </p>
      <div className="flex flex-wrap items-end gap-2">
        <Field id={codeId} label="Code from the app">
          <input id={codeId} name="code" inputMode="numeric" autoComplete="one-time-code" required maxLength={6} className={input} />
        </Field>
        <button type="submit" className={primaryButton}>
          Turn on
        </button>
      </div>
    </form>
  );
}

/** What an account with two-factor sign-in on can do: get new recovery codes, or turn it off. */
function TotpOffOrNewCodes({ onNewCodes, onOff }: { onNewCodes: (codes?: string[]) => void; onOff: () => void }) {
  return (
    <div className="space-y-3">
      <ProofForm action="recovery-codes" onDone={onNewCodes} />
      <ProofForm action="disable" danger onDone={onOff} />
    </div>
  );
}

export function PasskeySettings() {
  const queryClient = useQueryClient();
  const list = useQuery({ queryKey: ["passkeys"], queryFn: () => api<Reply<typeof PasskeyList>>("/relay/auth/passkeys") });
  const [result, setResult] = useState<Result>(null);
  const [needsConfirmation, setNeedsConfirmation] = useState(false);
  const [name, setName] = useState("");
  // Rendered by the server, so not useId: the settings hydrate as their own root (fieldIds in components/field.tsx).
  const nameId = "passkey-name";
  const refresh = () => queryClient.invalidateQueries({ queryKey: ["passkeys"] });

  const add = async (event: FormEvent) => {
    event.preventDefault();
    setResult(null);
    try {
      const { options } = await api<{ options: Parameters<typeof startRegistration>[0]["optionsJSON"] }>("/relay/auth/passkeys/options", {
        method: "POST",
      });
      // Loaded when a passkey is added, not with the settings page (issue 29: JS the first paint does not need).
      const { startRegistration: register } = await import("@simplewebauthn/browser");
      const response = await register({ optionsJSON: options });
      await api("/relay/auth/passkeys", { method: "POST", body: JSON.stringify({ name: name.trim() || "Passkey", response }) });
      setName("");
      setResult({ text: "Passkey added.", error: false });
      await refresh();
    } catch (error) {
      const e = error as Error;
      setNeedsConfirmation(isConfirmationRequired(error));
      setResult({ text: e.name === "NotAllowedError" ? "Cancelled." : e.message, error: true });
    }
  };
  const rename = async (passkey: Passkey) => {
    const next = window.prompt("New name", passkey.name)?.trim();
    if (!next) return;
    try {
      await api(`/relay/auth/passkeys/${encodeURIComponent(passkey.id)}`, { method: "PATCH", body: JSON.stringify({ name: next }) });
      await refresh();
    } catch (error) {
      setResult({ text: (error as Error).message, error: true });
    }
  };
  const remove = async (passkey: Passkey) => {
    try {
      await api(`/relay/auth/passkeys/${encodeURIComponent(passkey.id)}`, { method: "DELETE" });
      setResult({ text: `${passkey.name} deleted.`, error: false });
      await refresh();
    } catch (error) {
      setNeedsConfirmation(isConfirmationRequired(error));
      setResult({ text: (error as Error).message, error: true });
    }
  };

  return (
    <div className="space-y-4">
      <p className={muted}>A passkey signs you in with your device&apos;s screen lock or a security key, with no password and no code.</p>
      {list.data ? (
        <ul aria-label="Passkeys" className="divide-y divide-zinc-200 dark:divide-zinc-800">
          {list.data.passkeys.map((p) => (
            <li key={p.id} className="flex flex-wrap items-center justify-between gap-2 py-2 text-sm">
              <div>
                <p className="font-medium">{p.name}</p>
                <p className="text-xs text-zinc-500 dark:text-zinc-400">
                  added {formatDate(p.created_at)}
                  {p.last_used_at ? ` · used ${formatDate(p.last_used_at)}` : " · never used"}
                </p>
              </div>
              <span className="flex gap-2">
                <button type="button" className={secondaryButton} onClick={() => void rename(p)}>
                  Rename<span className="sr-only"> {p.name}</span>
                </button>
                <button type="button" className={secondaryButton} onClick={() => void remove(p)}>
                  Delete<span className="sr-only"> {p.name}</span>
                </button>
              </span>
            </li>
          ))}
        </ul>
      ) : (
        <Pending error={list.error} />
      )}
      <form onSubmit={add} className="flex flex-wrap items-end gap-2">
        <Field id={nameId} label="Passkey name">
          <input
            id={nameId}
            value={name}
            maxLength={64}
            placeholder="My laptop"
            onChange={(e) => setName(e.target.value)}
            className={input}
          />
        </Field>
        <button type="submit" className={primaryButton}>
          Add a passkey
        </button>
      </form>
      <Message result={result} />
      {needsConfirmation && (
        <ProofForm
          action="confirm"
          onDone={() => {
            setNeedsConfirmation(false);
            setResult({ text: "Confirmed for 10 minutes; try again.", error: false });
          }}
        />
      )}
    </div>
  );
}

/** The answer of a change that needs a recent confirmation (403 `forbidden`, lib/auth/confirmation.ts). */
const isConfirmationRequired = (error: unknown): boolean => error instanceof ApiError && error.status === 403 && error.type === "forbidden";
