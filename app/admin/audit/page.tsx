import Link from "next/link";
import { PageHeading, param, type SearchParams } from "@/components/admin/parts";
import { card, muted } from "@/components/dashboard/ui";
import { listAudit } from "@/lib/audit/log";
import { requireAdmin } from "@/lib/web/admin/guard";

export const metadata = { title: "Audit log" };

const PAGE_SIZE = 50;

/** `?after=<ms>.<id>`: the keyset position of the last entry shown (lib/db/paging.ts). */
function position(value: string | undefined): { t: number; id: string } | undefined {
  const match = value ? /^(\d{1,16})\.([A-Za-z0-9_-]{1,64})$/.exec(value) : null;
  return match ? { t: Number(match[1]), id: match[2] } : undefined;
}

const targetHref = (type: string, id: string) => (type === "user" ? `/admin/users/${id}` : null);

export default async function AdminAuditPage({ searchParams }: { searchParams: SearchParams }) {
  await requireAdmin();
  const params = await searchParams;
  const page = await listAudit({ limit: PAGE_SIZE, after: position(param(params, "after")) });
  return (
    <>
      <PageHeading title="Audit log">Every admin action, from this console and from the admin CLI, newest first.</PageHeading>
      {page.items.length === 0 && <p className={muted}>No entries.</p>}
      <ol className="space-y-2">
        {page.items.map((entry) => {
          const href = targetHref(entry.targetType, entry.targetId);
          const label = entry.targetLabel ?? entry.targetId;
          return (
            <li key={entry.id} className={`${card} space-y-1 text-sm`} data-action={entry.action}>
              <p className="flex flex-wrap items-baseline justify-between gap-2">
                <span>
                  <span className="font-medium">{entry.actorName}</span>{" "}
                  <span className={muted}>({entry.source === "web" ? "web" : "CLI"})</span>{" "}
                  <code className="rounded bg-zinc-100 px-1 dark:bg-zinc-800">{entry.action}</code> {entry.targetType}{" "}
                  {href ? (
                    <Link href={href} className="underline">
                      {label}
                    </Link>
                  ) : (
                    <span className="font-mono">{label}</span>
                  )}
                </span>
                <time dateTime={entry.createdAt.toISOString()} className={muted}>
                  {entry.createdAt.toISOString().slice(0, 19).replace("T", " ")} UTC
                </time>
              </p>
              {entry.detail && <p className={`${muted} break-all font-mono text-xs`}>{JSON.stringify(entry.detail)}</p>}
            </li>
          );
        })}
      </ol>
      {page.next && (
        <Link className="text-sm underline" href={`/admin/audit?after=${page.next.t}.${page.next.id}`} rel="next">
          Older entries
        </Link>
      )}
    </>
  );
}
