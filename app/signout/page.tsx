import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { AuthCard } from "@/components/auth/AuthCard";
import { SignOutButton } from "@/components/auth/SignOutButton";
import { primaryButtonClass } from "@/components/auth/styles";
import { getViewer } from "@/lib/web/viewer";

export const metadata: Metadata = { title: "Sign out", robots: { index: false } };
export const dynamic = "force-dynamic";

export default async function SignOutPage() {
  const viewer = await getViewer();
  if (!viewer) redirect("/");
  return (
    <AuthCard title="Sign out">
      <div className="space-y-4">
        <p className="text-zinc-700 dark:text-zinc-300">
          You are signed in as <strong>{viewer.username}</strong>. Signing out ends this browser’s session.
        </p>
        <SignOutButton className={primaryButtonClass} />
      </div>
    </AuthCard>
  );
}
