/**
 * The share page of a post: its media, details and the unfurl tags link previews read.
 * Everything comes from the share loader (lib/web/share-page.ts), which reads the request
 * and the post once; no client fetching, so crawlers get the whole page at once. See
 * docs/share-pages.md.
 */
import type { Metadata, Viewport } from "next";
import { notFound } from "next/navigation";
import { PasswordForm } from "@/components/share/PasswordForm";
import { PostDetails } from "@/components/share/PostDetails";
import { PostMedia } from "@/components/share/PostMedia";
import { loadSharePage, sharePageMetadata, shareThemeColor } from "@/lib/web/share-page";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ code: string }>; searchParams: Promise<{ password?: string | string[] }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return sharePageMetadata((await params).code);
}

export async function generateViewport({ params }: Props): Promise<Viewport> {
  return { themeColor: await shareThemeColor((await params).code) };
}

export default async function SharePage({ params, searchParams }: Props) {
  const page = await loadSharePage((await params).code);
  if (page.kind === "not_found") notFound();
  if (page.kind === "password") return <PasswordForm code={page.code} problem={(await searchParams).password} />;
  if (page.kind === "held") {
    return (
      <section className="mx-auto max-w-md space-y-3 py-16 text-center">
        <h1 className="text-2xl font-bold tracking-tight">Open this link in a browser</h1>
        <p className="text-zinc-600 dark:text-zinc-300">This post is shown to people only.</p>
      </section>
    );
  }
  if (page.kind === "moderated") {
    return (
      <section className="mx-auto max-w-md space-y-3 py-16 text-center">
        <h1 className="text-2xl font-bold tracking-tight">This post is under moderation</h1>
        <p className="text-zinc-600 dark:text-zinc-300">It was reported or flagged and is hidden while a moderator looks at it.</p>
      </section>
    );
  }
  page.countView();
  const { post, title, video } = page;
  return (
    <article className="mx-auto max-w-5xl space-y-6">
      {/* Next's openGraph.videos writes og:video but not og:video:url, which some unfurlers
          read (notes/clients.md); React hoists this tag into <head> with the others. */}
      {video ? <meta property="og:video:url" content={video.url} /> : null}
      <PostMedia post={post} title={title} texts={page.texts} autoAlts={page.autoAlts} />
      <PostDetails post={post} title={title} owner={page.owner} signedIn={page.signedIn} />
    </article>
  );
}
