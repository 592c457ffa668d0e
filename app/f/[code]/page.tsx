/**
 * A public folder (docs/folders.md): a grid of its posts' renditions, newest first, 24 to
 * a page, with OpenGraph tags. Private, moderated, expired and gated posts never appear
 * (lib/folders/folders.ts, `folderPageWhere`); a private folder is a 404.
 */
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { cache } from "react";
import { FolderGrid } from "@/components/folder/FolderGrid";
import { countOf } from "@/components/plural";
import { buttonClass } from "@/components/share/styles";
import { type FolderPage, loadFolderPage } from "@/lib/web/folder-page";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ code: string }>; searchParams: Promise<{ cursor?: string | string[] }> };

/** One read per request, shared by generateMetadata and the page. */
const load = cache((code: string, cursor: string | undefined): Promise<FolderPage> => loadFolderPage(code, cursor));

async function loadFrom({ params, searchParams }: Props): Promise<FolderPage> {
  const [{ code }, { cursor }] = await Promise.all([params, searchParams]);
  return load(code, typeof cursor === "string" ? cursor : undefined);
}

export async function generateMetadata(props: Props): Promise<Metadata> {
  const page = await loadFrom(props);
  if (page.kind === "not_found") return { title: "Folder not found", robots: { index: false } };
  const title = `${page.name} (@${page.username})`;
  const description = `A folder of ${page.username}'s uploads on Mediahost.`;
  const cover = page.posts.find((p) => p.files[0]?.renditions?.length)?.files[0];
  const image = cover?.renditions?.[cover.renditions.length - 1];
  return {
    title,
    description,
    alternates: { canonical: page.url },
    openGraph: {
      type: "website",
      title,
      description,
      url: page.url,
      ...(image ? { images: [{ url: image.url, width: image.width }] } : {}),
    },
    twitter: { card: image ? "summary_large_image" : "summary", title, description, ...(image ? { images: [image.url] } : {}) },
  };
}

export default async function FolderPageView(props: Props) {
  const page = await loadFrom(props);
  if (page.kind === "not_found") notFound();
  return (
    <div className="space-y-6">
      <header className="space-y-1">
        <h1 className="break-words text-2xl font-bold tracking-tight">{page.name}</h1>
        <p className="text-zinc-500 dark:text-zinc-400">
          A folder by{" "}
          <Link href={`/u/${encodeURIComponent(page.username)}`} className="hover:underline">
            @{page.username}
          </Link>{" "}
          · {countOf(page.posts.length, "post")}
          {page.nextCursor ? " on this page" : ""}
        </p>
        {page.guestUploads && (
          <p>
            <Link href={`/f/${page.code}/upload`} className={buttonClass}>
              Upload to this folder
            </Link>
          </p>
        )}
      </header>
      {page.posts.length === 0 ? (
        <p className="py-12 text-center text-zinc-500">Nothing to show here yet.</p>
      ) : (
        <FolderGrid posts={page.posts} />
      )}
      {page.nextCursor && (
        <p className="text-center">
          <Link href={`/f/${page.code}?cursor=${encodeURIComponent(page.nextCursor)}`} className={buttonClass}>
            Older posts
          </Link>
        </p>
      )}
    </div>
  );
}
