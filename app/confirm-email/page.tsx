/**
 * The link mailed to a new email address (docs/web-auth.md, "Email address"): a button that
 * confirms it (a form post: opening the link alone changes nothing, so a mail scanner that
 * follows links cannot confirm).
 */
import type { Metadata } from "next";
import Link from "next/link";
import { AuthCard } from "@/components/auth/AuthCard";
import { muted, primaryButton } from "@/components/dashboard/ui";
import { pendingEmailOf } from "@/lib/auth/email-change";
import { confirmEmailAction } from "@/lib/web/password-actions";

export const metadata: Metadata = { title: "Confirm your email address", robots: { index: false }, referrer: "no-referrer" };
export const dynamic = "force-dynamic";

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

const ERRORS = new Map([
  ["expired", "This link is not valid any more; change the address again in Settings."],
  ["taken", "That address is used by another account now."],
  ["cancel", "This cancel link was used already, is older than 24 hours, or the change was confirmed or replaced meanwhile."],
]);

const settings = (
  <Link href="/dashboard/settings" className="font-medium text-brand-600 hover:underline dark:text-brand-400">
    Settings
  </Link>
);

export default async function ConfirmEmailPage({ searchParams }: { searchParams: SearchParams }) {
  const params = await searchParams;
  if (params.done === "1") {
    return (
      <AuthCard title="Email address confirmed" footer={settings}>
        <p role="status" className={muted}>
          Your account uses the new address from now on.
        </p>
      </AuthCard>
    );
  }
  if (params.cancelled === "1") {
    return (
      <AuthCard title="Change cancelled" footer={settings}>
        <p role="status" className={muted}>
          Your account keeps its address. If you did not ask for the change, change your password: someone may be signed in as you.
        </p>
      </AuthCard>
    );
  }
  const error = typeof params.error === "string" ? ERRORS.get(params.error) : undefined;
  const token = typeof params.token === "string" ? params.token : "";
  const email = error ? null : await pendingEmailOf(token);
  if (!email) {
    return (
      <AuthCard title="Link not valid" footer={settings}>
        <p role="alert" className={muted}>
          {error ?? "This confirmation link was used already, is older than 24 hours, or is not complete."}
        </p>
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Confirm your email address">
      <form action={confirmEmailAction} className="space-y-4">
        <input type="hidden" name="token" value={token} />
        <p className={muted}>
          Use <strong className="break-all">{email}</strong> for your account (password-reset links go there).
        </p>
        <button type="submit" className={`${primaryButton} w-full`}>
          Confirm
        </button>
      </form>
    </AuthCard>
  );
}
