/**
 * "Forgot your password?" (docs/web-auth.md, "Passwords"): with mail configured, a form that
 * mails a one-time link; the answer is the same whether or not the account exists. Without
 * mail, the page says to ask the site's administrator.
 */
import type { Metadata } from "next";
import Link from "next/link";
import { AuthCard } from "@/components/auth/AuthCard";
import { Field } from "@/components/field";
import { input, muted, primaryButton } from "@/components/dashboard/ui";
import { mailConfigured } from "@/lib/auth/mail";
import { forgotPasswordAction } from "@/lib/web/password-actions";

export const metadata: Metadata = { title: "Forgot password", robots: { index: false } };
export const dynamic = "force-dynamic";

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

const ERRORS = new Map([
  ["limited", "Too many requests from your network; please try again in an hour."],
  ["unavailable", "Password mail is not set up on this server; ask its administrator for a reset link."],
]);

const backToSignIn = (
  <Link href="/signin" className="font-medium text-brand-600 hover:underline dark:text-brand-400">
    Back to sign in
  </Link>
);

export default async function ForgotPasswordPage({ searchParams }: { searchParams: SearchParams }) {
  const params = await searchParams;
  if (!mailConfigured()) {
    return (
      <AuthCard title="Forgot your password?" footer={backToSignIn}>
        <p className={muted}>This server does not send mail. Ask its administrator for a reset link: they can make one for your account.</p>
      </AuthCard>
    );
  }
  if (params.sent === "1") {
    return (
      <AuthCard title="Check your mail" footer={backToSignIn}>
        <p role="status" className={muted}>
          If that account exists and has an email address, a link to choose a new password is on its way. It works once, for 30 minutes.
        </p>
      </AuthCard>
    );
  }
  const error = typeof params.error === "string" ? ERRORS.get(params.error) : undefined;
  return (
    <AuthCard title="Forgot your password?" footer={backToSignIn}>
      <form action={forgotPasswordAction} className="space-y-4">
        <p className={muted}>We will mail a link to choose a new one to the address of your account.</p>
        <Field id="login" label="Username or email">
          <input id="login" name="login" autoComplete="username" required maxLength={254} className={input} />
        </Field>
        {error && (
          <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-700 dark:bg-red-950 dark:text-red-300">
            {error}
          </p>
        )}
        <button type="submit" className={`${primaryButton} w-full`}>
          Send the link
        </button>
      </form>
    </AuthCard>
  );
}
