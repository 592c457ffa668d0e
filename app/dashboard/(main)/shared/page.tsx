/** Where the share target (app/share-target/route.ts, docs/share-target.md) lands: what became of the shared content. */
import Link from "next/link";
import { env } from "@/lib/config/env";
import { ErrorNotice } from "@/components/dashboard/notices";
import { CopyButton } from "@/components/dashboard/copy-button";
import { errorWords } from "@/lib/web/error-words";
import { ownPostPrivacy } from "@/lib/web/dashboard/shared";
import { requireDashboardUser } from "@/lib/web/dashboard/user";

export const metadata = { title: "Shared" };
export const dynamic = "force-dynamic";

/** Only our own share pages and short links are shown as links: the query is anyone's to write. */
function ownUrl(value: string | undefined): string | null {
  if (!value || !URL.canParse(value)) return null;
  const origin = new URL(value).origin;
  const e = env();
  return [e.PUBLIC_URL, e.shortUrl].some((base) => URL.canParse(base) && new URL(base).origin === origin) ? value : null;
}

export default async function SharedPage({
  searchParams,
}: {
  searchParams: Promise<{ kind?: string; url?: string; error?: string; count?: string }>;
}) {
  const viewer = await requireDashboardUser("/dashboard");
  const { kind, url, error: code } = await searchParams;
  const error = errorWords(code);
  const link = ownUrl(url);
  // A private post opens for its owner alone: it is not offered as a link to share.
  const privacy = link && kind !== "link" ? await ownPostPrivacy(viewer.id, link) : null;
  return (
    <div className="mx-auto max-w-lg space-y-4">
      <h1 className="text-2xl font-semibold tracking-tight">Shared</h1>
      {error && <ErrorNotice>{error}</ErrorNotice>}
      {!error && link && (
        <div className="space-y-3 rounded-lg border border-zinc-200 p-5 dark:border-zinc-800" data-testid="share-result">
          <p>{kind === "link" ? "Short link created:" : privacy === "private" ? "Uploaded as private:" : "Uploaded:"}</p>
          <p className="break-all font-mono text-sm">
            <a href={link} className="text-brand-600 underline dark:text-brand-400">
              {link}
            </a>
          </p>
          {privacy === "private" ? (
            <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="private-result">
              Only you can open it. To share it, make it unlisted or public in the gallery; new uploads from your phone follow your default
              privacy in{" "}
              <Link href="/dashboard/settings" className="underline">
                Settings
              </Link>
              .
            </p>
          ) : (
            <CopyButton value={link} label="Copy link" />
          )}
        </div>
      )}
      <Link href={kind === "link" ? "/dashboard/links" : "/dashboard"} className="text-sm text-brand-600 underline dark:text-brand-400">
        {kind === "link" ? "Your short links" : "Back to the gallery"}
      </Link>
    </div>
  );
}
