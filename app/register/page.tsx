import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { AuthCard } from "@/components/auth/AuthCard";
import { RegisterForm } from "@/components/auth/RegisterForm";
import { env } from "@/lib/config/env";
import { getViewer } from "@/lib/web/viewer";

export const metadata: Metadata = { title: "Create an account", robots: { index: false } };
export const dynamic = "force-dynamic";

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export default async function RegisterPage({ searchParams }: { searchParams: SearchParams }) {
  if (await getViewer()) redirect("/dashboard");
  const { invite } = await searchParams;
  const mode = env().REGISTRATION;
  const footer = (
    <>
      Already have an account?{" "}
      <Link href="/signin" className="font-medium text-brand-600 hover:underline dark:text-brand-400">
        Sign in
      </Link>
    </>
  );
  if (mode === "closed") {
    return (
      <AuthCard title="Create an account" footer={footer}>
        <p className="text-zinc-700 dark:text-zinc-300">Sign-up is closed on this server. Ask its operator for an account.</p>
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Create an account" footer={footer}>
      <RegisterForm needsInvite={mode === "invite"} invite={typeof invite === "string" ? invite : null} />
    </AuthCard>
  );
}
