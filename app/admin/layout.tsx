import type { Metadata } from "next";
import type { ReactNode } from "react";
import { AdminNav } from "@/components/admin/nav";
import { requireAdmin } from "@/lib/web/admin/guard";

export const metadata: Metadata = { title: { default: "Admin", template: "%s · Admin · Mediahost" }, robots: { index: false } };
// Per-request role checks: never prerendered or cached.
export const dynamic = "force-dynamic";

export default async function AdminLayout({ children }: { children: ReactNode }) {
  const viewer = await requireAdmin();
  return (
    <div className="flex flex-col gap-6 md:flex-row md:gap-10">
      <aside className="md:w-48 md:shrink-0">
        <p className="mb-3 hidden truncate text-sm text-zinc-500 md:block dark:text-zinc-400">
          Admin: <span className="font-medium text-zinc-900 dark:text-zinc-100">{viewer.username}</span>
        </p>
        <AdminNav />
      </aside>
      <div className="min-w-0 flex-1 space-y-4">{children}</div>
    </div>
  );
}
