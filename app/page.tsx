import Link from "next/link";
import { env } from "@/lib/config/env";
import { setupPendingCached } from "@/lib/web/setup-state";
import { getViewer } from "@/lib/web/viewer";

const FEATURES: readonly { title: string; text: string }[] = [
  {
    title: "Upload from anywhere",
    text: "Send images and videos from ShareX, Flameshot, Chatterino, shell scripts or your phone with a personal API key. Team keys upload into a shared gallery.",
  },
  {
    title: "Share pages",
    text: "Every upload becomes a post with a short share link, rich previews in Discord, Slack and Telegram, and a direct file link. Keep it public, unlisted or private.",
  },
  {
    title: "Relay",
    text: "The social layer: a discover feed, likes, comments, follows, notifications and profiles, for the posts you choose to make public.",
  },
];

const primary = "rounded-md bg-brand-600 px-4 py-2 font-medium text-white hover:bg-brand-700";
const secondary = "rounded-md border border-zinc-300 px-4 py-2 font-medium hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800";

/** The first step a visitor can take: set the instance up, go to their dashboard, sign up or sign in. */
async function FirstSteps() {
  if (await setupPendingCached()) {
    return (
      <Link href="/setup" className={primary}>
        Set up this instance
      </Link>
    );
  }
  if (await getViewer()) {
    return (
      <Link href="/dashboard" className={primary}>
        Open your dashboard
      </Link>
    );
  }
  return (
    <>
      {env().REGISTRATION === "open" && (
        <Link href="/register" className={primary}>
          Create account
        </Link>
      )}
      <Link href="/signin" className={env().REGISTRATION === "open" ? secondary : primary}>
        Sign in
      </Link>
    </>
  );
}

export default function HomePage() {
  return (
    <div className="space-y-12">
      <section className="max-w-2xl space-y-5">
        <h1 className="text-4xl font-bold tracking-tight sm:text-5xl">Your own place for screenshots and clips</h1>
        <p className="text-lg text-zinc-600 dark:text-zinc-300">
          Mediahost is a self-hostable image and video host. Upload from the tools you already use, share a link, and let others discover
          what you make public.
        </p>
        <div className="flex flex-wrap gap-3">
          <FirstSteps />
          <Link href="/discover" className={secondary}>
            Discover posts
          </Link>
        </div>
      </section>

      <section aria-labelledby="features-heading">
        <h2 id="features-heading" className="sr-only">
          Features
        </h2>
        <ul className="grid gap-4 sm:grid-cols-3">
          {FEATURES.map((feature) => (
            <li key={feature.title} className="rounded-lg border border-zinc-200 p-5 dark:border-zinc-800">
              <h3 className="font-semibold">{feature.title}</h3>
              <p className="mt-2 text-sm text-zinc-600 dark:text-zinc-400">{feature.text}</p>
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
