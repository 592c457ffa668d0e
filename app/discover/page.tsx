import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { PostCard } from "@/components/discover/PostCard";
import { DiscoverTabs } from "@/components/discover/Tabs";
import { requestClientIp } from "@/lib/http/client-ip";
import { discoverFeed } from "@/lib/web/feeds";
import { getViewer } from "@/lib/web/viewer";

export const metadata: Metadata = { title: "Discover", description: "Public posts, recent and popular." };
export const dynamic = "force-dynamic";

export default async function DiscoverPage() {
  const [viewer, requestHeaders] = await Promise.all([getViewer(), headers()]);
  const posts = await discoverFeed(viewer?.id ?? null, requestClientIp(requestHeaders));
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-3xl font-bold tracking-tight">Discover</h1>
          <p className="text-zinc-600 dark:text-zinc-400">Public posts, recent and popular.</p>
        </div>
        <DiscoverTabs current="/discover" />
      </div>
      {!viewer && (
        <p className="rounded-lg border border-zinc-200 px-4 py-3 text-sm dark:border-zinc-800">
          <Link href="/signin?callbackUrl=/discover" className="font-medium text-brand-600 hover:underline dark:text-brand-400">
            Sign in
          </Link>{" "}
          to like and comment.
        </p>
      )}
      {posts.length === 0 ? (
        <p className="py-16 text-center text-zinc-500 dark:text-zinc-400">Nothing here yet. Public uploads appear here.</p>
      ) : (
        <ul className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-3">
          {posts.map((post) => (
            <PostCard key={post.code} post={post} signedIn={!!viewer} />
          ))}
        </ul>
      )}
    </div>
  );
}
