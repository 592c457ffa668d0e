import Link from "next/link";
import { DeletePost } from "@/components/admin/delete-post";
import { Back, Flash, PageHeading, param, plural, type SearchParams } from "@/components/admin/parts";
import { PostPreviews } from "@/components/admin/preview";
import { card, muted, primaryButton, secondaryButton } from "@/components/dashboard/ui";
import { reportQueue, type QueuedReport } from "@/lib/admin/reports";
import type { ReportUser } from "@/lib/reports/review";
import { requireAdmin } from "@/lib/web/admin/guard";
import { decideReportAction, moderatePostAction, suspendAction } from "@/lib/web/admin/actions";

export const metadata = { title: "Reports" };

const HERE = "/admin/reports";

function UserLink({ user }: { user: ReportUser }) {
  return (
    <Link href={`/admin/users/${user.id}`} className="font-medium underline-offset-2 hover:underline">
      {user.username}
      {user.suspended && " (suspended)"}
    </Link>
  );
}

function SuspendButton({ user }: { user: ReportUser }) {
  if (user.suspended) return null;
  return (
    <form action={suspendAction}>
      <Back path={HERE} />
      <input type="hidden" name="user" value={user.id} />
      <button type="submit" className={secondaryButton}>
        Suspend {user.username}
      </button>
    </form>
  );
}

function Target({ report }: { report: QueuedReport }) {
  const t = report.target;
  if (t.type === "user") {
    return (
      <p>
        User <UserLink user={t.user} />
      </p>
    );
  }
  if (t.type === "comment") {
    return (
      <div className="space-y-1">
        <p>
          Comment by <UserLink user={t.author} /> on post {t.postCode}:
        </p>
        <blockquote className="border-l-4 border-zinc-300 pl-3 text-sm italic dark:border-zinc-700">{t.body}</blockquote>
      </div>
    );
  }
  return (
    <p>
      Post <span className="font-medium">{t.title ? `${t.title} (${t.code})` : t.code}</span> by{" "}
      {t.author ? <UserLink user={t.author} /> : "a deleted user"}
      {t.moderated && " · under moderation"}
    </p>
  );
}

/** Closes the report as resolved (acted on) or dismissed (nothing to do). */
function CloseReport({
  report,
  outcome,
  className,
  label,
}: {
  report: QueuedReport;
  outcome: "resolved" | "dismissed";
  className: string;
  label: string;
}) {
  return (
    <form action={decideReportAction}>
      <Back path={HERE} />
      <input type="hidden" name="report" value={report.id} />
      <input type="hidden" name="outcome" value={outcome} />
      <button type="submit" className={className}>
        {label}
      </button>
    </form>
  );
}

function Actions({ report }: { report: QueuedReport }) {
  const t = report.target;
  const author = t.type === "user" ? t.user : t.author;
  const code = t.type === "post" ? t.code : null;
  return (
    <div className="flex flex-wrap gap-2">
      <CloseReport report={report} outcome="resolved" className={primaryButton} label="Resolve" />
      <CloseReport report={report} outcome="dismissed" className={secondaryButton} label="Dismiss" />
      {code && t.type === "post" && !t.moderated && (
        <form action={moderatePostAction}>
          <Back path={HERE} />
          <input type="hidden" name="code" value={code} />
          <button type="submit" className={secondaryButton}>
            Moderate post
          </button>
        </form>
      )}
      {author && <SuspendButton user={author} />}
      {code && <DeletePost code={code} back={HERE} label="Delete post" />}
    </div>
  );
}

export default async function AdminReportsPage({ searchParams }: { searchParams: SearchParams }) {
  await requireAdmin();
  const params = await searchParams;
  const { reports, hasMore } = await reportQueue();
  return (
    <>
      <PageHeading title="Reports">
        {plural(reports.length, "open report")}
        {hasMore ? " shown, more waiting" : ""}, newest first. The same reports as the CLI&apos;s <code>report list --open</code>.
      </PageHeading>
      <Flash notice={param(params, "notice")} error={param(params, "error")} />
      {reports.length === 0 && <p className={muted}>No open reports.</p>}
      <ul className="space-y-3">
        {reports.map((report) => (
          <li key={report.id} className={`${card} space-y-3`} data-report={report.id}>
            <div className="flex flex-wrap items-baseline justify-between gap-2">
              <p className={muted}>
                Reported by <UserLink user={report.reporter} /> on {report.createdAt.toISOString().slice(0, 16).replace("T", " ")} UTC
              </p>
              <span className="text-xs uppercase tracking-wide text-zinc-500 dark:text-zinc-400">{report.target.type}</span>
            </div>
            <Target report={report} />
            <p className="text-sm">
              <span className="font-medium">Reason:</span> {report.reason ?? <span className={muted}>none given</span>}
            </p>
            {report.post && <PostPreviews post={report.post} />}
            <Actions report={report} />
          </li>
        ))}
      </ul>
    </>
  );
}
