import type { Metadata, Viewport } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { AccountLink } from "@/components/auth/AccountLink";
import { themeMode } from "@/lib/web/theme";
import { getViewer } from "@/lib/web/viewer";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Mediahost", template: "%s · Mediahost" },
  description: "Self-hosted image and video hosting with share pages and a social layer.",
  applicationName: "Mediahost",
  openGraph: { siteName: "Mediahost" },
};

export const viewport: Viewport = {
  colorScheme: "light dark",
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#ffffff" },
    { media: "(prefers-color-scheme: dark)", color: "#09090b" },
  ],
};

const NAV: readonly { href: string; label: string }[] = [
  { href: "/discover", label: "Discover" },
  { href: "/dashboard", label: "Dashboard" },
];

function Header() {
  return (
    <header className="border-b border-zinc-200 dark:border-zinc-800">
      <div className="mx-auto flex max-w-page items-center justify-between gap-4 px-4 py-3 sm:px-6">
        {/* No prefetch on header links: each one was a server render on every page view (issue 29). */}
        <Link href="/" prefetch={false} className="text-lg font-semibold tracking-tight">
          Mediahost
        </Link>
        <nav aria-label="Main">
          <ul className="flex items-center gap-1 text-sm sm:gap-3">
            {NAV.map((item) => (
              <li key={item.href}>
                <Link
                  href={item.href}
                  prefetch={false}
                  className="rounded-md px-2 py-1.5 text-zinc-600 hover:bg-zinc-100 hover:text-zinc-900 dark:text-zinc-300 dark:hover:bg-zinc-800 dark:hover:text-white"
                >
                  {item.label}
                </Link>
              </li>
            ))}
            <li>
              <AccountLink />
            </li>
          </ul>
        </nav>
      </div>
    </header>
  );
}

export default async function RootLayout({ children }: { children: ReactNode }) {
  // A saved light or dark theme wins over the system setting (globals.css, `dark` variant).
  const mode = themeMode((await getViewer())?.theme);
  return (
    <html lang="en" className={mode === "system" ? undefined : mode} style={mode === "system" ? undefined : { colorScheme: mode }}>
      <body className="flex min-h-screen flex-col font-sans">
        <a
          href="#main"
          className="sr-only focus:not-sr-only focus:absolute focus:left-4 focus:top-3 focus:z-10 focus:rounded-md focus:bg-white focus:px-3 focus:py-2 dark:focus:bg-zinc-900"
        >
          Skip to content
        </a>
        <Header />
        <main id="main" className="mx-auto w-full max-w-page flex-1 px-4 py-10 sm:px-6">
          {children}
        </main>
        <footer className="border-t border-zinc-200 py-6 text-center text-sm text-zinc-500 dark:border-zinc-800 dark:text-zinc-400">
          Mediahost, self-hosted media sharing
        </footer>
      </body>
    </html>
  );
}
