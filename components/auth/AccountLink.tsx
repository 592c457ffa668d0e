import Link from "next/link";
import { env } from "@/lib/config/env";
import { setupPendingCached } from "@/lib/web/setup-state";
import { getViewer, type Viewer } from "@/lib/web/viewer";

const menuItem = "block rounded-md px-3 py-2 text-sm hover:bg-zinc-100 dark:hover:bg-zinc-800";
const button = "whitespace-nowrap rounded-md bg-brand-600 px-3 py-1.5 font-medium text-white hover:bg-brand-700";
const quiet = "hidden whitespace-nowrap rounded-md px-2 py-1.5 font-medium sm:inline-block";

const SetUpLink = () => (
  <Link href="/setup" prefetch={false} className={button}>
    Set up
  </Link>
);

/**
 * The header's account corner. Signed out: "Set up" while the instance has no administrator
 * (docs/setup.md), then "Sign in" and, when sign-up is open, "Create account". Signed in: the
 * username opens a menu (set up while there is no administrator, profile, settings, the
 * console for admins, sign out); nothing signs
 * out without the sign-out page asking.
 */
export async function AccountLink() {
  const [viewer, setup] = await Promise.all([getViewer(), setupPendingCached()]);
  // Signed in, "Set up" is the menu's first item: the header must still fit 390 px.
  if (viewer) return <AccountMenu viewer={viewer} setup={setup} />;
  return (
    <span className="flex items-center gap-1 sm:gap-2">
      {setup && <SetUpLink />}
      <SignedOut setup={setup} />
    </span>
  );
}

/** Before the first administrator, "Set up" takes the button's place (on a phone, the whole corner: the header must fit 390 px). */
function SignedOut({ setup }: { setup: boolean }) {
  return (
    <>
      {!setup && env().REGISTRATION === "open" && (
        <Link href="/register" prefetch={false} className={quiet}>
          Create account
        </Link>
      )}
      <Link href="/signin" prefetch={false} className={setup ? quiet : button}>
        Sign in
      </Link>
    </>
  );
}

/** A <details> menu: it opens without JavaScript. */
function AccountMenu({ viewer, setup }: { viewer: Viewer; setup: boolean }) {
  const items = [
    ...(setup ? [{ href: "/setup", label: "Set up this instance" }] : []),
    { href: `/u/${encodeURIComponent(viewer.username)}`, label: "Profile" },
    { href: "/dashboard/settings", label: "Settings" },
    ...(viewer.admin ? [{ href: "/admin", label: "Admin console" }] : []),
    { href: "/signout", label: "Sign out…" },
  ];
  return (
    <details className="relative" data-testid="account-menu">
      <summary className="inline-flex max-w-[4.5rem] cursor-pointer list-none items-center gap-1 truncate whitespace-nowrap rounded-md border border-zinc-300 px-2 py-1.5 align-middle font-medium hover:bg-zinc-100 sm:max-w-[12rem] sm:px-3 dark:border-zinc-700 dark:hover:bg-zinc-800 [&::-webkit-details-marker]:hidden">
        <span className="sr-only">Signed in as </span>
        <span className="truncate">{viewer.username}</span>
        <span aria-hidden="true">▾</span>
      </summary>
      <ul className="absolute right-0 z-20 mt-1 w-48 rounded-lg border border-zinc-200 bg-white p-1 shadow-lg dark:border-zinc-700 dark:bg-zinc-900">
        {items.map((item) => (
          <li key={item.href}>
            <Link href={item.href} prefetch={false} className={menuItem}>
              {item.label}
            </Link>
          </li>
        ))}
      </ul>
    </details>
  );
}
