/**
 * A public profile: avatar, banner, bio, counts and the user's public posts, newest first,
 * 24 to a page. Signed-in visitors can follow. A suspended user's page says so and shows
 * nothing else. See docs/profiles.md.
 */
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { cache } from "react";
import { PostCard } from "@/components/discover/PostCard";
import { FollowButton } from "@/components/profile/FollowButton";
import { countOf } from "@/components/plural";
import { buttonClass } from "@/components/share/styles";
import { loadProfilePage, profileUrl, type ProfilePage } from "@/lib/web/profile";
import { getViewer } from "@/lib/web/viewer";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ username: string }>; searchParams: Promise<{ cursor?: string | string[] }> };

/** One read per request, shared by generateMetadata and the page. */
const load = cache(async (username: string, cursor: string | undefined): Promise<ProfilePage> => {
  const viewer = await getViewer();
  return loadProfilePage(viewer?.id ?? null, username, cursor);
});

async function loadFrom({ params, searchParams }: Props): Promise<ProfilePage> {
  const [{ username }, { cursor }] = await Promise.all([params, searchParams]);
  return load(decodeURIComponent(username), typeof cursor === "string" ? cursor : undefined);
}

export async function generateMetadata(props: Props): Promise<Metadata> {
  const page = await loadFrom(props);
  if (page.kind === "not_found") return { title: "User not found", robots: { index: false } };
  if (page.kind === "suspended") return { title: "Account suspended", robots: { index: false } };
  const { user } = page;
  const title = `${user.nickname} (@${user.username})`;
  const description = user.bio || `${countOf(user.upload_count, "upload")} on Mediahost.`;
  const url = profileUrl(user.username);
  return {
    title,
    description,
    alternates: { canonical: url },
    openGraph: { type: "profile", title, description, url, username: user.username, images: [{ url: user.avatar, alt: user.nickname }] },
    twitter: { card: "summary", title, description, images: [user.avatar] },
  };
}

export default async function ProfilePageView(props: Props) {
  const [page, viewer] = await Promise.all([loadFrom(props), getViewer()]);
  if (page.kind === "not_found") notFound();
  if (page.kind === "suspended") {
    return (
      <section className="mx-auto max-w-md space-y-3 py-16 text-center">
        <h1 className="text-2xl font-bold tracking-tight">@{page.username}</h1>
        <p className="text-zinc-600 dark:text-zinc-300">This account is suspended.</p>
      </section>
    );
  }
  const { user, posts, nextCursor, self } = page;
  return (
    <div className="space-y-6">
      <section className="overflow-hidden rounded-xl border border-zinc-200 dark:border-zinc-800">
        <div className="h-32 bg-gradient-to-r from-brand-600 to-brand-400 sm:h-44">
          {user.banner && <img src={user.banner} alt="" className="h-full w-full object-cover" />}
        </div>
        <div className="space-y-4 p-4 sm:p-6">
          <div className="-mt-14 flex flex-wrap items-end justify-between gap-4 sm:-mt-16">
            <img
              src={user.avatar}
              alt=""
              width={96}
              height={96}
              className="h-24 w-24 rounded-full border-4 border-white bg-zinc-200 object-cover dark:border-zinc-950 dark:bg-zinc-800"
            />
            {self ? (
              <Link href="/dashboard/settings" className={buttonClass}>
                Edit profile
              </Link>
            ) : viewer && !user.blocking ? (
              <FollowButton username={user.username} following={user.following} followerCount={user.follower_count} />
            ) : null}
          </div>
          <div>
            <h1 className="text-2xl font-bold tracking-tight">
              {user.nickname}
              {user.verified && (
                <span className="ml-1 text-brand-600 dark:text-brand-400" title="Verified">
                  ✓<span className="sr-only"> verified</span>
                </span>
              )}
            </h1>
            <p className="text-zinc-500 dark:text-zinc-400">@{user.username}</p>
          </div>
          {user.bio && <p className="whitespace-pre-line break-words">{user.bio}</p>}
          <ul className="flex flex-wrap gap-x-5 gap-y-1 text-sm text-zinc-600 dark:text-zinc-400" aria-label="Counts">
            <li>{countOf(user.upload_count, "upload")}</li>
            <li>{countOf(user.follower_count, "follower")}</li>
            <li>{countOf(user.following_count, "following")}</li>
          </ul>
          {user.blocking && <p className="text-sm text-zinc-600 dark:text-zinc-400">You have blocked this user.</p>}
          {!viewer && (
            <p className="text-sm">
              <Link
                href={`/signin?callbackUrl=${encodeURIComponent(`/u/${user.username}`)}`}
                className="font-medium text-brand-600 hover:underline dark:text-brand-400"
              >
                Sign in
              </Link>{" "}
              to follow.
            </p>
          )}
        </div>
      </section>
      <section aria-label="Posts" className="space-y-4">
        {posts.length === 0 ? (
          <p className="py-12 text-center text-zinc-500 dark:text-zinc-400">No public posts yet.</p>
        ) : (
          <ul className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-3">
            {posts.map((post) => (
              <PostCard key={post.code} post={post} signedIn={!!viewer} />
            ))}
          </ul>
        )}
        {nextCursor && (
          <p className="text-center">
            <Link href={`/u/${encodeURIComponent(user.username)}?cursor=${encodeURIComponent(nextCursor)}`} className={buttonClass}>
              Older posts
            </Link>
          </p>
        )}
      </section>
    </div>
  );
}
