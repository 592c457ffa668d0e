import Link from "next/link";
import { getViewer } from "@/lib/web/viewer";

/** The header's account corner: "Sign in", or the signed-in user's name linking to sign-out. */
export async function AccountLink() {
  const viewer = await getViewer();
  if (!viewer) {
    return (
      <Link
        href="/signin"
        prefetch={false}
        className="whitespace-nowrap rounded-md bg-brand-600 px-3 py-1.5 font-medium text-white hover:bg-brand-700"
      >
        Sign in
      </Link>
    );
  }
  return (
    <Link
      href="/signout"
      prefetch={false}
      title="Sign out"
      className="inline-block max-w-[4.5rem] truncate whitespace-nowrap rounded-md border border-zinc-300 px-2 py-1.5 sm:max-w-[12rem] sm:px-3 align-middle font-medium hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800"
    >
      <span className="sr-only">Signed in as </span>
      {viewer.username}
    </Link>
  );
}
