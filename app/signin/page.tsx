import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { AuthCard } from "@/components/auth/AuthCard";
import { SignInForm } from "@/components/auth/SignInForm";
import { safeRedirect } from "@/components/auth/safe-redirect";
import { env } from "@/lib/config/env";
import { oauthProviderList } from "@/lib/web/sign-in/oauth-providers";
import { signInErrorText } from "@/lib/web/signin-errors";
import { getViewer } from "@/lib/web/viewer";

export const metadata: Metadata = { title: "Sign in", robots: { index: false } };
export const dynamic = "force-dynamic";

type SearchParams = Promise<Record<string, string | string[] | undefined>>;
const one = (value: string | string[] | undefined): string | null => (typeof value === "string" ? value : null);

export default async function SignInPage({ searchParams }: { searchParams: SearchParams }) {
  const params = await searchParams;
  const callbackUrl = one(params.callbackUrl);
  if (await getViewer()) redirect(safeRedirect(callbackUrl));
  const canRegister = env().REGISTRATION !== "closed";
  return (
    <AuthCard
      title="Sign in"
      footer={
        canRegister ? (
          <>
            New here?{" "}
            <Link href="/register" className="font-medium text-brand-600 hover:underline dark:text-brand-400">
              Create an account
            </Link>
          </>
        ) : null
      }
    >
      <SignInForm
        callbackUrl={callbackUrl}
        initialError={signInErrorText(one(params.error))}
        initialTicket={one(params.ticket)}
        providers={oauthProviderList()}
      />
    </AuthCard>
  );
}
