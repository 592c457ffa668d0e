import Link from "next/link";

const TABS = [
  { href: "/discover", label: "Feed" },
  { href: "/discover/gifs", label: "GIFs" },
] as const;

/** Feed / GIFs switch at the top of the discover pages. */
export function DiscoverTabs({ current }: { current: (typeof TABS)[number]["href"] }) {
  return (
    <nav aria-label="Discover" className="flex gap-1 rounded-lg bg-zinc-100 p-1 text-sm dark:bg-zinc-900">
      {TABS.map((tab) => (
        <Link
          key={tab.href}
          href={tab.href}
          aria-current={tab.href === current ? "page" : undefined}
          className={
            tab.href === current
              ? "rounded-md bg-white px-3 py-1.5 font-medium shadow-sm dark:bg-zinc-800"
              : "rounded-md px-3 py-1.5 text-zinc-600 hover:text-zinc-900 dark:text-zinc-400 dark:hover:text-white"
          }
        >
          {tab.label}
        </Link>
      ))}
    </nav>
  );
}
