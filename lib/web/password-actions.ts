"use server";
/** The forgotten-password forms (docs/web-auth.md, "Passwords"): they answer with codes, so no caller-supplied text is shown. */
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { confirmEmailChange } from "@/lib/auth/email-change";
import { requestPasswordReset, resetPassword } from "@/lib/auth/passwords";
import { isDomainError } from "@/lib/errors";
import { requestClientIp } from "@/lib/http/client-ip";
import { PASSWORD_MAX_LENGTH } from "@/lib/users/accounts";

const text = (form: FormData, name: string): string => String(form.get(name) ?? "").slice(0, PASSWORD_MAX_LENGTH);

export async function forgotPasswordAction(form: FormData): Promise<void> {
  let outcome = "sent=1";
  try {
    await requestPasswordReset(text(form, "login"), requestClientIp(await headers()));
  } catch (error) {
    if (!isDomainError(error)) throw error;
    outcome = `error=${error.type === "rate_limited" ? "limited" : "unavailable"}`;
  }
  redirect(`/forgot-password?${outcome}`);
}

export async function resetPasswordAction(form: FormData): Promise<void> {
  const token = text(form, "token").slice(0, 100);
  const password = text(form, "password");
  const back = (code: string) => `/reset-password?token=${encodeURIComponent(token)}&error=${code}`;
  if (password !== text(form, "repeat")) redirect(back("mismatch"));
  let target = "/reset-password?done=1";
  try {
    await resetPassword(token, password);
  } catch (error) {
    if (!isDomainError(error)) throw error;
    target = back(error.type === "invalid_request" ? "rules" : "expired");
  }
  redirect(target);
}

/** The confirmation link's form (a POST, so a mail scanner opening the link confirms nothing). */
export async function confirmEmailAction(form: FormData): Promise<void> {
  const token = text(form, "token").slice(0, 100);
  let target = "/confirm-email?done=1";
  try {
    await confirmEmailChange(token);
  } catch (error) {
    if (!isDomainError(error)) throw error;
    target = `/confirm-email?error=${error.type === "invalid_request" ? "taken" : "expired"}`;
  }
  redirect(target);
}
