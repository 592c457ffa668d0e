"use client";
/**
 * Settings → Password (docs/web-auth.md, "Passwords"): the current password (or, for an
 * account without one, a code from the authenticator app) and the new one, twice. Every
 * other session ends; this browser stays signed in.
 */
import type { PasswordChanged } from "@/lib/replies/factors";
import { Field, fieldIds } from "@/components/field";
import { AccountForm, proofBody } from "./account-form";
import { api, type Reply } from "./api";
import { input, primaryButton } from "./ui";

async function send(data: FormData): Promise<string> {
  const next = String(data.get("next") ?? "");
  if (next !== String(data.get("repeat") ?? "")) throw new Error("The two new passwords are not the same.");
  const body = { ...proofBody(String(data.get("current") ?? "").trim()), new_password: next };
  const reply = await api<Reply<typeof PasswordChanged>>("/relay/auth/password", { method: "POST", body: JSON.stringify(body) });
  const others = reply.signed_out === 1 ? "1 other session was" : `${reply.signed_out} other sessions were`;
  return `Password changed. ${others} signed out.`;
}

export function PasswordForm() {
  const ids = fieldIds("password", ["current", "next", "repeat"]);
  return (
    <AccountForm send={send} submit="Change password" buttonClass={primaryButton}>
      <Field id={ids.current} label="Current password" hint="No password yet (GitHub, OpenID)? A code from your authenticator app.">
        <input id={ids.current} name="current" type="password" autoComplete="current-password" required className={input} />
      </Field>
      <Field id={ids.next} label="New password" hint="At least 8 characters. Every other session is signed out.">
        <input id={ids.next} name="next" type="password" autoComplete="new-password" minLength={8} required className={input} />
      </Field>
      <Field id={ids.repeat} label="New password again">
        <input id={ids.repeat} name="repeat" type="password" autoComplete="new-password" required className={input} />
      </Field>
    </AccountForm>
  );
}
