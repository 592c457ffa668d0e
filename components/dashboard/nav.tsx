"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";

const ITEMS: readonly { href: string; label: string }[] = [
  { href: "/dashboard", label: "Gallery" },
  { href: "/dashboard/apps", label: "Apps & keys" },
  { href: "/dashboard/teams", label: "Teams" },
  { href: "/dashboard/usage", label: "Usage" },
  { href: "/dashboard/settings", label: "Settings" },
];

/** Section navigation: a scrollable row on phones, a side column from md up. */
export function DashboardNav() {
  const pathname = usePathname();
  return (
    <nav aria-label="Dashboard" className="-mx-4 overflow-x-auto px-4 md:mx-0 md:px-0">
      <ul className="flex gap-1 md:flex-col">
        {ITEMS.map((item) => {
          const current = item.href === "/dashboard" ? pathname === "/dashboard" : pathname.startsWith(item.href);
          return (
            <li key={item.href}>
              <Link
                href={item.href}
                aria-current={current ? "page" : undefined}
                className={`block whitespace-nowrap rounded-md px-3 py-2 text-sm font-medium ${
                  current
                    ? "bg-brand-50 text-brand-700 dark:bg-brand-500/15 dark:text-brand-400"
                    : "text-zinc-600 hover:bg-zinc-100 hover:text-zinc-900 dark:text-zinc-400 dark:hover:bg-zinc-800 dark:hover:text-white"
                }`}
              >
                {item.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
