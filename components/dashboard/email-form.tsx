"use client";
/**
 * Settings → Email address (docs/web-auth.md, "Email address"): the new address and the
 * password (or a code). With mail configured the server mails a link to the new address and
 * nothing changes until it is followed.
 */
import { useQueryClient } from "@tanstack/react-query";
import type { EmailChangeReply } from "@/lib/replies/factors";
import { Field, fieldIds } from "@/components/field";
import { AccountForm, proofBody } from "./account-form";
import { api, type OwnAccount, type Reply } from "./api";
import { input, muted, secondaryButton } from "./ui";

export function EmailForm({ user }: { user: OwnAccount }) {
  const queryClient = useQueryClient();
  const ids = fieldIds("email-change", ["email", "proof"]);

  const send = async (data: FormData): Promise<string> => {
    const body = { email: String(data.get("email") ?? ""), ...proofBody(String(data.get("proof") ?? "").trim()) };
    const reply = await api<Reply<typeof EmailChangeReply>>("/relay/users/@me/email", { method: "POST", body: JSON.stringify(body) });
    if (reply.pending_email) return `A link is on its way to ${reply.pending_email}; the address changes when you follow it.`;
    await queryClient.invalidateQueries({ queryKey: ["relay-me"] });
    return "Email address changed.";
  };

  return (
    <AccountForm send={send} submit="Change email address" buttonClass={secondaryButton}>
      <p className={muted}>Now: {user.email ?? "none"}. Password-reset links go to this address.</p>
      <Field id={ids.email} label="New email address">
        <input id={ids.email} name="email" type="email" autoComplete="email" required maxLength={254} className={input} />
      </Field>
      <Field id={ids.proof} label="Password (or a code from your app)">
        <input id={ids.proof} name="proof" type="password" autoComplete="current-password" required className={input} />
      </Field>
    </AccountForm>
  );
}
