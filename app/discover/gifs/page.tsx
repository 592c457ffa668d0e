import type { Metadata } from "next";
import Link from "next/link";
import { PostCard } from "@/components/discover/PostCard";
import { FOUR_COLUMN_SIZES } from "@/components/preview-image";
import { DiscoverTabs } from "@/components/discover/Tabs";
import { gifPage } from "@/lib/web/feeds";
import { getViewer } from "@/lib/web/viewer";

export const metadata: Metadata = { title: "GIFs", description: "Search public GIFs." };
export const dynamic = "force-dynamic";

type SearchParams = Promise<Record<string, string | string[] | undefined>>;
const one = (value: string | string[] | undefined): string | undefined => (typeof value === "string" ? value : undefined);

export default async function GifsPage({ searchParams }: { searchParams: SearchParams }) {
  const params = await searchParams;
  const q = one(params.q)?.trim() || undefined;
  const viewer = await getViewer();
  const page = await gifPage(viewer?.id ?? null, q, one(params.cursor));
  const more = page.nextCursor ? `/discover/gifs?${new URLSearchParams({ ...(q ? { q } : {}), cursor: page.nextCursor })}` : null;
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-3xl font-bold tracking-tight">GIFs</h1>
          <p className="text-zinc-600 dark:text-zinc-400">Public GIFs, newest first.</p>
        </div>
        <DiscoverTabs current="/discover/gifs" />
      </div>
      <form role="search" action="/discover/gifs" className="flex gap-2">
        <label htmlFor="gif-search" className="sr-only">
          Search GIFs
        </label>
        <input
          id="gif-search"
          name="q"
          type="search"
          defaultValue={q ?? ""}
          maxLength={300}
          placeholder="Search by title or description"
          className="min-w-0 flex-1 rounded-md border border-zinc-300 bg-white px-3 py-2 dark:border-zinc-700 dark:bg-zinc-900"
        />
        <button type="submit" className="rounded-md bg-brand-600 px-4 py-2 font-medium text-white hover:bg-brand-700">
          Search
        </button>
      </form>
      {page.posts.length === 0 ? (
        <p className="py-16 text-center text-zinc-500 dark:text-zinc-400">{q ? `No GIFs match “${q}”.` : "No GIFs yet."}</p>
      ) : (
        <ul className="grid grid-cols-2 gap-4 sm:grid-cols-3 lg:grid-cols-4">
          {page.posts.map((post) => (
            <PostCard key={post.code} post={post} signedIn={!!viewer} sizes={FOUR_COLUMN_SIZES} />
          ))}
        </ul>
      )}
      {more && (
        <div className="text-center">
          <Link
            href={more}
            className="inline-block rounded-md border border-zinc-300 px-4 py-2 font-medium hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800"
          >
            More GIFs
          </Link>
        </div>
      )}
    </div>
  );
}
