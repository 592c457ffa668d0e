/** The console's overview figures (docs/admin.md), one aggregate query each. */
import { db } from "@/lib/db/client";

export const OVERVIEW_DAYS = 30;

export interface Overview {
  users: number;
  suspendedUsers: number;
  posts: number;
  files: number;
  bytesStored: number;
  /** Oldest first, days without uploads as 0. */
  uploadsPerDay: { day: string; uploads: number; bytes: number }[];
  jobsWaiting: number;
  jobsRunning: number;
  openReports: number;
  moderatedPosts: number;
}

const dayKey = (date: Date) => date.toISOString().slice(0, 10);

export async function overview(now: Date = new Date()): Promise<Overview> {
  const days = Array.from({ length: OVERVIEW_DAYS }, (_, i) => dayKey(new Date(now.getTime() - (OVERVIEW_DAYS - 1 - i) * 86_400_000)));
  const [users, suspendedUsers, posts, fileStats, usage, jobsWaiting, jobsRunning, openReports, moderatedPosts] = await Promise.all([
    db().user.count(),
    db().user.count({ where: { suspended: true } }),
    db().post.count(),
    db().file.aggregate({ _count: { _all: true }, _sum: { size: true } }),
    db().usageDay.groupBy({ by: ["day"], where: { day: { gte: days[0] } }, _sum: { uploadCount: true, bytes: true } }),
    db().job.count({ where: { state: "queued" } }),
    db().job.count({ where: { state: "running" } }),
    db().report.count({ where: { status: "open" } }),
    db().post.count({ where: { moderated: true } }),
  ]);
  const byDay = new Map(usage.map((u) => [u.day, u._sum]));
  return {
    users,
    suspendedUsers,
    posts,
    files: fileStats._count._all,
    bytesStored: Number(fileStats._sum.size ?? 0n),
    uploadsPerDay: days.map((day) => ({
      day,
      uploads: byDay.get(day)?.uploadCount ?? 0,
      bytes: Number(byDay.get(day)?.bytes ?? 0n),
    })),
    jobsWaiting,
    jobsRunning,
    openReports,
    moderatedPosts,
  };
}
