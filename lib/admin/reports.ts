/** The console's reports queue (docs/admin.md): the CLI's rows, with previews, the decision audited. */
import { listReports, resolveReport, type ReportRecord, type ReportStatus } from "@/lib/reports/review";
import { recordAudit, type Actor } from "@/lib/audit/log";
import { postPreviews, type QueuedPost } from "./posts";

export interface QueuedReport extends ReportRecord {
  post: QueuedPost | null;
}

export interface ReportQueue {
  reports: QueuedReport[];
  hasMore: boolean;
}

export async function reportQueue(limit = 50): Promise<ReportQueue> {
  const { reports, hasMore } = await listReports({ openOnly: true, limit });
  const codes = reports.flatMap((r) =>
    r.target.type === "post" ? [r.target.code] : r.target.type === "comment" ? [r.target.postCode] : [],
  );
  const previews = await postPreviews(codes);
  return {
    hasMore,
    reports: reports.map((r) => {
      const code = r.target.type === "post" ? r.target.code : r.target.type === "comment" ? r.target.postCode : null;
      return { ...r, post: (code && previews.get(code)) || null };
    }),
  };
}

export async function decideReport(
  actor: Actor,
  id: string,
  outcome: Exclude<ReportStatus, "open">,
): Promise<{ id: string; status: ReportStatus }> {
  const report = await resolveReport(id, outcome);
  await recordAudit(actor, outcome === "dismissed" ? "report.dismiss" : "report.resolve", { type: "report", id: report.id });
  return report;
}
