"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";

export interface SectionLink {
  href: string;
  label: string;
}

/**
 * A section's navigation (the dashboard's, the console's): a scrollable row on phones, a
 * side column from md up. The first link is the section's root, current only on its own
 * path; the others are current on their whole subtree. On phones the row fades out at its
 * right edge, so a cut-off tab reads as "scroll for more", and ends with room to scroll the
 * last tab clear of the fade.
 */
export function SectionNav({ label, items }: { label: string; items: readonly SectionLink[] }) {
  const pathname = usePathname();
  const root = items[0]?.href;
  return (
    <nav
      aria-label={label}
      className="-mx-4 overflow-x-auto px-4 [mask-image:linear-gradient(to_right,black_calc(100%-2.5rem),transparent)] md:mx-0 md:px-0 md:[mask-image:none]"
    >
      <ul className="flex w-max gap-1 pr-10 md:w-auto md:flex-col md:pr-0">
        {items.map((item) => {
          const current = item.href === root ? pathname === root : pathname.startsWith(item.href);
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
