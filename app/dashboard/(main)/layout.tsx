import type { Metadata } from "next";
import type { ReactNode } from "react";
import { DashboardNav } from "@/components/dashboard/nav";
import { DashboardProviders } from "@/components/dashboard/providers";
import { isActiveAdmin } from "@/lib/admin/roles";
import { requireDashboardUser } from "@/lib/web/dashboard/user";

export const metadata: Metadata = { title: "Dashboard", robots: { index: false } };
// Per-user pages: never prerendered or cached.
export const dynamic = "force-dynamic";

/** A suspended account keeps its session but every change is refused (issue 27): say so first. */
function SuspendedNotice() {
  return (
    <p
      role="alert"
      data-testid="suspended-notice"
      className="mb-4 rounded-md bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-300"
    >
      This account is suspended: uploads and every change are refused. Your posts stay as they are; ask the site's administrator to appeal.
    </p>
  );
}

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const viewer = await requireDashboardUser("/dashboard");
  return (
    <DashboardProviders>
      {/* At least a screen tall: the panels load after the first paint, and the footer must not start on screen and be pushed off it (issue 29). */}
      <div className="flex min-h-screen flex-col gap-6 md:flex-row md:gap-10">
        <aside className="md:w-48 md:shrink-0">
          <p className="mb-3 hidden truncate text-sm text-zinc-500 md:block dark:text-zinc-400">
            Signed in as <span className="font-medium text-zinc-900 dark:text-zinc-100">{viewer.username}</span>
          </p>
          <DashboardNav />
          {(await isActiveAdmin(viewer.id)) && (
            <a
              href="/admin"
              className="mt-2 block px-3 py-2 text-sm font-medium text-brand-700 underline-offset-2 hover:underline dark:text-brand-400"
            >
              Admin console
            </a>
          )}
        </aside>
        <div className="min-w-0 flex-1">
          {viewer.suspended && <SuspendedNotice />}
          {children}
        </div>
      </div>
    </DashboardProviders>
  );
}
