"use client";
/** Weekly quota, the 365-day upload calendar (GET /usage-history) and analytics (GET /analytics). */
import { useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import type { AnalyticsReply } from "@/lib/replies/reports";
import type { UsageHistoryReply } from "@/lib/presenters/users";
import { api, type OwnAccount, type Reply } from "./api";
import { BarChart, UploadHeatmap } from "./charts";
import { countOf, nounFor } from "@/components/plural";
import { Pending } from "./notices";
import { card, formatBytes, formatDate, input, muted } from "./ui";

type UsageHistory = Reply<typeof UsageHistoryReply>;
type Analytics = Reply<typeof AnalyticsReply>;
/** One bucket of GET /analytics: a UTC day, or (range 24h) the start of a UTC hour. */
type AnalyticsPoint = Analytics["series"][number];

/** A day as it comes; an hour as `YYYY-MM-DD HH:00 UTC`. */
const bucketLabel = (p: AnalyticsPoint): string => ("day" in p ? p.day : `${p.hour.slice(0, 10)} ${p.hour.slice(11, 16)} UTC`);

const RANGES = [
  { value: "24h", label: "Last 24 hours" },
  { value: "7d", label: "Last 7 days" },
  { value: "30d", label: "Last 30 days" },
  { value: "90d", label: "Last 90 days" },
  { value: "365d", label: "Last year" },
] as const;

function Stat({ label, value }: { label: string; value: string }) {
  return (
    <div className={card}>
      <p className="text-xs uppercase tracking-wide text-zinc-500 dark:text-zinc-400">{label}</p>
      <p className="mt-1 text-xl font-semibold">{value}</p>
    </div>
  );
}

export function QuotaBar({ usage }: { usage: OwnAccount["limits"]["usage"] }) {
  // A sliver stays visible for any use at all, so "some" never looks like "none".
  const percent = usage.quota > 0 ? Math.min(100, Math.max(usage.used > 0 ? 1 : 0, (usage.used / usage.quota) * 100)) : 0;
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap justify-between gap-2 text-sm">
        <span>
          <strong>{formatBytes(usage.used)}</strong> of {formatBytes(usage.quota)} used this week
        </span>
        <span className="text-zinc-500 dark:text-zinc-400">resets {formatDate(usage.resets_at)}</span>
      </div>
      <div
        role="meter"
        aria-label="Weekly quota used"
        aria-valuemin={0}
        aria-valuemax={usage.quota}
        aria-valuenow={usage.used}
        aria-valuetext={`${formatBytes(usage.used)} of ${formatBytes(usage.quota)}`}
        className="h-3 overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-800"
      >
        <div
          className={`h-full rounded-full ${percent > 90 ? "bg-red-500" : percent > 70 ? "bg-amber-500" : "bg-brand-600"}`}
          style={{ width: `${percent}%` }}
        />
      </div>
      <p className={muted}>{formatBytes(usage.remaining)} left.</p>
    </div>
  );
}

export function UsagePanel() {
  return (
    <div className="space-y-8">
      <h1 className="text-2xl font-semibold tracking-tight">Usage</h1>
      <QuotaSection />
      <ActivitySection />
      <AnalyticsSection />
    </div>
  );
}

function QuotaSection() {
  const me = useQuery({ queryKey: ["me"], queryFn: () => api<OwnAccount>("/api/users/@me") });
  return (
    <section aria-labelledby="quota-heading" className={`${card} space-y-3`}>
      <h2 id="quota-heading" className="font-medium">
        Weekly quota
      </h2>
      {me.data ? <QuotaBar usage={me.data.limits.usage} /> : <Pending error={me.error} />}
      {me.data && (
        <p className={muted}>
          Plan <strong className="capitalize">{me.data.plan}</strong> · files up to {formatBytes(me.data.upload_limits.file_bytes)} ·{" "}
          {me.data.limits.priority.minutes_left} priority streaming {nounFor(me.data.limits.priority.minutes_left, "minute")} left
        </p>
      )}
    </section>
  );
}

/** The last 365 days: totals and the calendar. */
function ActivitySection() {
  const history = useQuery({ queryKey: ["usage-history"], queryFn: () => api<UsageHistory>("/api/usage-history") });
  const today = new Date().toISOString().slice(0, 10);
  return (
    <section aria-labelledby="activity-heading" className="space-y-3">
      <h2 id="activity-heading" className="font-medium">
        Upload activity
      </h2>
      {history.data ? (
        <>
          <div className="grid grid-cols-2 gap-3 sm:grid-cols-4">
            <Stat label="Uploads (365 days)" value={String(history.data.stats.upload_count)} />
            <Stat label="Uploaded" value={formatBytes(history.data.stats.total_bytes)} />
            <Stat label="Active days" value={String(history.data.stats.active_days)} />
            <Stat label="Current streak" value={countOf(history.data.stats.current_streak, "day")} />
          </div>
          <div className={card}>
            <UploadHeatmap history={history.data.history} today={today} />
          </div>
        </>
      ) : (
        <Pending error={history.error} />
      )}
    </section>
  );
}

/** Views and uploads over the chosen range, and the most viewed posts in it. */
function AnalyticsSection() {
  const [range, setRange] = useState<(typeof RANGES)[number]["value"]>("30d");
  const rangeId = useId();
  const analytics = useQuery({ queryKey: ["analytics", range], queryFn: () => api<Analytics>(`/api/analytics?range=${range}`) });
  return (
    <section aria-labelledby="analytics-heading" className="space-y-3">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 id="analytics-heading" className="font-medium">
          Analytics
        </h2>
        <div className="flex items-center gap-2">
          <label htmlFor={rangeId} className="text-sm">
            Range
          </label>
          <select id={rangeId} value={range} onChange={(e) => setRange(e.target.value as typeof range)} className={`${input} w-auto`}>
            {RANGES.map((r) => (
              <option key={r.value} value={r.value}>
                {r.label}
              </option>
            ))}
          </select>
        </div>
      </div>
      {analytics.data ? (
        <div className="grid gap-4 lg:grid-cols-2">
          <div className={card}>
            <BarChart label="Views" points={analytics.data.series.map((p) => ({ day: bucketLabel(p), value: p.view_count }))} />
          </div>
          <div className={card}>
            <BarChart label="Uploads" points={analytics.data.series.map((p) => ({ day: bucketLabel(p), value: p.upload_count }))} />
          </div>
          <div className={`${card} lg:col-span-2`}>
            <h3 className="mb-2 text-sm font-medium">Most viewed posts</h3>
            <TopPosts posts={analytics.data.top_posts} />
          </div>
        </div>
      ) : (
        <Pending error={analytics.error} />
      )}
    </section>
  );
}

function TopPosts({ posts }: { posts: Analytics["top_posts"] }) {
  if (posts.length === 0) return <p className={muted}>No views in this range yet.</p>;
  return (
    <ol className="space-y-1 text-sm">
      {posts.map((p) => (
        <li key={p.code} className="flex justify-between gap-3">
          <a href={p.url} className="truncate underline">
            {p.title || p.code}
          </a>
          <span className="shrink-0 text-zinc-500 dark:text-zinc-400">{countOf(p.range_view_count, "view")}</span>
        </li>
      ))}
    </ol>
  );
}
