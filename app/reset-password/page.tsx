/**
 * A one-time reset link's page (docs/web-auth.md, "Passwords"): a new password, twice.
 * Using the link ends every session of the account; the page then sends the person to sign in.
 */
import type { Metadata } from "next";
import Link from "next/link";
import { AuthCard } from "@/components/auth/AuthCard";
import { Field } from "@/components/field";
import { input, muted, primaryButton } from "@/components/dashboard/ui";
import { resetTokenUsable } from "@/lib/auth/passwords";
import { PASSWORD_MIN_LENGTH } from "@/lib/users/accounts";
import { resetPasswordAction } from "@/lib/web/password-actions";

// The token is in the URL: no referrer may carry it to another site.
export const metadata: Metadata = { title: "Choose a new password", robots: { index: false }, referrer: "no-referrer" };
export const dynamic = "force-dynamic";

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

const ERRORS = new Map([
  ["mismatch", "The two passwords are not the same."],
  ["rules", `Passwords are at least ${PASSWORD_MIN_LENGTH} characters long.`],
  ["expired", "This link is not valid any more; ask for a new one."],
]);

const signInLink = (text: string) => (
  <Link href="/signin" className="font-medium text-brand-600 hover:underline dark:text-brand-400">
    {text}
  </Link>
);

export default async function ResetPasswordPage({ searchParams }: { searchParams: SearchParams }) {
  const params = await searchParams;
  if (params.done === "1") {
    return (
      <AuthCard title="Password changed" footer={signInLink("Sign in")}>
        <p role="status" className={muted}>
          Your new password is set, and every device that was signed in has been signed out.
        </p>
      </AuthCard>
    );
  }
  const token = typeof params.token === "string" ? params.token : "";
  if (!(await resetTokenUsable(token))) {
    return (
      <AuthCard title="Link not valid" footer={signInLink("Back to sign in")}>
        <p className={muted}>
          This reset link was used already, is older than 30 minutes, or is not complete.{" "}
          <Link href="/forgot-password" className="font-medium text-brand-600 hover:underline dark:text-brand-400">
            Ask for a new one
          </Link>
          .
        </p>
      </AuthCard>
    );
  }
  const error = typeof params.error === "string" ? ERRORS.get(params.error) : undefined;
  return (
    <AuthCard title="Choose a new password">
      <form action={resetPasswordAction} className="space-y-4">
        <input type="hidden" name="token" value={token} />
        <Field id="password" label="New password" hint={`At least ${PASSWORD_MIN_LENGTH} characters.`}>
          <input
            id="password"
            name="password"
            type="password"
            autoComplete="new-password"
            required
            minLength={PASSWORD_MIN_LENGTH}
            className={input}
          />
        </Field>
        <Field id="repeat" label="New password again">
          <input id="repeat" name="repeat" type="password" autoComplete="new-password" required className={input} />
        </Field>
        {error && (
          <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-700 dark:bg-red-950 dark:text-red-300">
            {error}
          </p>
        )}
        <button type="submit" className={`${primaryButton} w-full`}>
          Set the new password
        </button>
      </form>
    </AuthCard>
  );
}
