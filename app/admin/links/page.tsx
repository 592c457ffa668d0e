import Link from "next/link";
import { Confirm } from "@/components/admin/confirm";
import { Back, Flash, PageHeading, param, type SearchParams } from "@/components/admin/parts";
import { card, muted, secondaryButton } from "@/components/dashboard/ui";
import { adminLinks } from "@/lib/admin/links";
import { decodeCursor, encodeCursor } from "@/lib/http/cursor";
import { isLinkLive, shortUrlOf } from "@/lib/links/links";
import { requireAdmin } from "@/lib/web/admin/guard";
import { deleteLinkAction } from "@/lib/web/admin/actions";

export const metadata = { title: "Short links" };

const HERE = "/admin/links";
const ENDPOINT = "adminLinks";

function after(cursor: string | undefined) {
  if (!cursor) return undefined;
  try {
    return decodeCursor(ENDPOINT, cursor);
  } catch {
    return undefined;
  }
}

export default async function AdminLinksPage({ searchParams }: { searchParams: SearchParams }) {
  await requireAdmin();
  const params = await searchParams;
  const page = await adminLinks(after(param(params, "cursor")));
  const now = Date.now();
  return (
    <>
      <PageHeading title="Short links">Every user&apos;s short links, newest first (docs/short-links.md).</PageHeading>
      <Flash notice={param(params, "notice")} error={param(params, "error")} />
      {page.items.length === 0 && <p className={muted}>No short links.</p>}
      <ul className="space-y-2">
        {page.items.map((link) => (
          <li key={link.code} className={`${card} flex flex-wrap items-center justify-between gap-2`} data-link={link.code}>
            <div className="min-w-0">
              <p className="truncate font-mono text-sm">{shortUrlOf(link.code)}</p>
              <p className="break-all text-sm">→ {link.url}</p>
              <p className={muted}>
                by {link.username} · {link.clickCount}
                {link.maxClicks === null ? "" : ` of ${link.maxClicks}`} clicks
                {isLinkLive(link, now) ? "" : " · inactive"}
              </p>
            </div>
            <Confirm label="Delete" confirm={`Delete ${link.code}`} action={deleteLinkAction}>
              <Back path={HERE} />
              <input type="hidden" name="code" value={link.code} />
            </Confirm>
          </li>
        ))}
      </ul>
      {page.next && (
        <Link href={`${HERE}?cursor=${encodeCursor(ENDPOINT, page.next)}`} className={secondaryButton}>
          Older links
        </Link>
      )}
    </>
  );
}
