import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { AuthCard } from "@/components/auth/AuthCard";
import { RegisterForm } from "@/components/auth/RegisterForm";
import { setupPending } from "@/lib/accounts/setup";

export const metadata: Metadata = { title: "Set up", robots: { index: false } };
// Asked on every request: the page exists only while no administrator does.
export const dynamic = "force-dynamic";

export default async function SetupPage() {
  if (!(await setupPending())) notFound();
  return (
    <AuthCard title="Set up this instance">
      <p className="mb-4 text-sm text-zinc-600 dark:text-zinc-300">
        Create the first administrator. The set-up code is in the server&apos;s log (the line “set-up code”), or run{" "}
        <code className="rounded bg-zinc-100 px-1 dark:bg-zinc-800">npm run -s admin -- setup-code</code>.
      </p>
      <RegisterForm needsInvite={false} invite={null} setup />
    </AuthCard>
  );
}
