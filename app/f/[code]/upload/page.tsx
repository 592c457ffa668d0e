/**
 * A folder's guest upload page (docs/guest-uploads.md): people without an account send
 * files into the folder while its owner has it open to guests. The folder's posts are not
 * shown here (it may be private); a closed, unknown or forbidden folder is a 404. Works
 * without JavaScript: the password and the upload are plain forms.
 */
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { UnlockForm } from "@/components/share/UnlockForm";
import { unlockGuestUploadAction } from "@/lib/web/guest-actions";
import { GuestUploadForm } from "@/components/folder/GuestUploadForm";
import { guestResultOf } from "@/components/folder/guest-words";
import { formatDate } from "@/components/share/format";
import { loadGuestUploadPage } from "@/lib/web/guest-upload-page";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ code: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const page = await loadGuestUploadPage((await params).code);
  if (page.kind === "not_found") return { title: "Folder not found", robots: { index: false } };
  return { title: `Upload to ${page.name}`, robots: { index: false, follow: false } };
}

export default async function GuestUploadPageView({ params, searchParams }: Props) {
  const [{ code }, query] = await Promise.all([params, searchParams]);
  const page = await loadGuestUploadPage(code);
  if (page.kind === "not_found") notFound();
  return (
    <section className="mx-auto max-w-lg space-y-6 py-8">
      <header className="space-y-1">
        <h1 className="break-words text-2xl font-bold tracking-tight">Upload to {page.name}</h1>
        <p className="text-zinc-600 dark:text-zinc-300">@{page.username} invites you to send files into this folder. No account needed.</p>
      </header>
      {page.kind === "locked" ? (
        <div className="space-y-3">
          <p className="text-zinc-600 dark:text-zinc-300">This upload page is password-protected. Enter the password its owner gave you.</p>
          <UnlockForm action={unlockGuestUploadAction} id="guest-password" code={page.code} subject="folder" problem={query.password} />
        </div>
      ) : page.full ? (
        <p role="status" className="rounded-md border border-zinc-300 p-4 dark:border-zinc-700">
          This folder cannot take more uploads right now.
        </p>
      ) : (
        <>
          {page.expiresAt && <p className="text-sm text-zinc-500 dark:text-zinc-400">Open until {formatDate(page.expiresAt)} (UTC).</p>}
          <GuestUploadForm code={page.code} maxFileBytes={page.maxFileBytes} initial={guestResultOf(query)} />
        </>
      )}
    </section>
  );
}
