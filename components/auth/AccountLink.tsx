import Link from "next/link";
import { setupPendingCached } from "@/lib/web/setup-state";
import { env } from "@/lib/config/env";
import { getViewer } from "@/lib/web/viewer";

const menuItem = "block rounded-md px-3 py-2 text-sm hover:bg-zinc-100 dark:hover:bg-zinc-800";

/**
 * The header's account corner. Signed out: "Set up" while the instance has no administrator
 * (docs/setup.md), then "Sign in" and, when sign-up is open, "Create account". Signed in: the
 * username opens a menu (profile, settings, the console for admins, sign out); nothing signs
 * out without the sign-out page asking. A <details> menu: it works without JavaScript.
 */
export async function AccountLink() {
  const viewer = await getViewer();
  if (!viewer) {
    const setup = await setupPendingCached();
    const button = "whitespace-nowrap rounded-md bg-brand-600 px-3 py-1.5 font-medium text-white hover:bg-brand-700";
    // Before the first administrator, "Set up" is the thing to do: it takes the button's place
    // (and, on a phone, the whole corner: the header must fit 390 px).
    return (
      <span className="flex items-center gap-1 sm:gap-2">
        {setup && (
          <Link href="/setup" prefetch={false} className={button}>
            Set up
          </Link>
        )}
        {!setup && env().REGISTRATION === "open" && (
          <Link href="/register" prefetch={false} className="hidden whitespace-nowrap rounded-md px-2 py-1.5 font-medium sm:inline-block">
            Create account
          </Link>
        )}
        <Link
          href="/signin"
          prefetch={false}
          className={setup ? "hidden whitespace-nowrap rounded-md px-2 py-1.5 font-medium sm:inline-block" : button}
        >
          Sign in
        </Link>
      </span>
    );
  }
  // A signed-in account while the instance has no administrator (made with the CLI): the
  // way to one is still shown.
  const setup = await setupPendingCached();
  return (
    <span className="flex items-center gap-1 sm:gap-2">
      {setup && (
        <Link
          href="/setup"
          prefetch={false}
          className="whitespace-nowrap rounded-md px-2 py-1.5 font-medium text-brand-700 underline dark:text-brand-400"
        >
          Set up
        </Link>
      )}
      <details className="relative" data-testid="account-menu">
        <summary className="inline-flex max-w-[6rem] cursor-pointer list-none items-center gap-1 truncate whitespace-nowrap rounded-md border border-zinc-300 px-2 py-1.5 align-middle font-medium hover:bg-zinc-100 sm:max-w-[12rem] sm:px-3 dark:border-zinc-700 dark:hover:bg-zinc-800 [&::-webkit-details-marker]:hidden">
          <span className="sr-only">Signed in as </span>
          <span className="truncate">{viewer.username}</span>
          <span aria-hidden="true">▾</span>
        </summary>
        <ul className="absolute right-0 z-20 mt-1 w-48 rounded-lg border border-zinc-200 bg-white p-1 shadow-lg dark:border-zinc-700 dark:bg-zinc-900">
          <li>
            <Link href={`/u/${encodeURIComponent(viewer.username)}`} prefetch={false} className={menuItem}>
              Profile
            </Link>
          </li>
          <li>
            <Link href="/dashboard/settings" prefetch={false} className={menuItem}>
              Settings
            </Link>
          </li>
          {viewer.admin && (
            <li>
              <Link href="/admin" prefetch={false} className={menuItem}>
                Admin console
              </Link>
            </li>
          )}
          <li>
            <Link href="/signout" prefetch={false} className={menuItem}>
              Sign out…
            </Link>
          </li>
        </ul>
      </details>
    </span>
  );
}
