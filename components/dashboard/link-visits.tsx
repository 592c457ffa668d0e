"use client";
/**
 * A short link's QR code and visits (docs/qr-and-visits.md): the QR image to show or download,
 * and GET /api/links/{code}/visits as a bar per day and a list of referring hosts.
 */
import { useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import { countOf } from "@/components/plural";
import type { LinkVisitsReply } from "@/lib/replies/links";
import { api, type Reply } from "./api";
import { BarChart } from "./charts";
import { QrCode } from "./qr-code";
import { input, muted } from "./ui";

const RANGES = [
  { value: "7d", label: "Last 7 days" },
  { value: "30d", label: "Last 30 days" },
  { value: "90d", label: "Last 90 days" },
  { value: "365d", label: "Last 365 days" },
] as const;
type Range = (typeof RANGES)[number]["value"];

export function LinkInsights({ code, shortUrl }: { code: string; shortUrl: string }) {
  const path = `/api/links/${encodeURIComponent(code)}`;
  return (
    <div className="space-y-4 border-t border-zinc-200 pt-3 dark:border-zinc-800" data-link-insights={code}>
      <QrCode path={`${path}/qr`} target={shortUrl} />
      <LinkVisits path={path} />
    </div>
  );
}

function LinkVisits({ path }: { path: string }) {
  const id = useId();
  const [range, setRange] = useState<Range>("30d");
  const visits = useQuery({
    queryKey: ["link-visits", path, range],
    queryFn: ({ signal }) => api<Reply<typeof LinkVisitsReply>>(`${path}/visits?range=${range}`, { signal }),
  });
  return (
    <section className="space-y-3" aria-label="Visits">
      <div className="flex flex-wrap items-center gap-2">
        <h3 className="font-medium">Visits</h3>
        <label htmlFor={id} className="sr-only">
          Range of the visits
        </label>
        <select id={id} className={`${input} w-auto`} value={range} onChange={(e) => setRange(e.target.value as Range)}>
          {RANGES.map((r) => (
            <option key={r.value} value={r.value}>
              {r.label}
            </option>
          ))}
        </select>
      </div>
      {visits.isError && (
        <p role="alert" className="text-sm text-red-600 dark:text-red-400">
          {visits.error.message}
        </p>
      )}
      {visits.isPending && <p className={muted}>Loading visits…</p>}
      {visits.data && (
        <>
          <p className={muted} data-testid="visit-total">
            {countOf(visits.data.visit_count, "visit")} from {visits.data.from} to {visits.data.to}
          </p>
          <BarChart label="Visits per day" points={visits.data.days.map((d) => ({ day: d.day, value: d.visit_count }))} />
          <Referrers referrers={visits.data.referrers} />
        </>
      )}
    </section>
  );
}

function Referrers({ referrers }: { referrers: Reply<typeof LinkVisitsReply>["referrers"] }) {
  if (!referrers.length) return <p className={muted}>No visits in this range.</p>;
  return (
    <table className="w-full text-sm">
      <caption className="text-left font-medium">Referring sites</caption>
      <thead>
        <tr className="text-left text-zinc-500 dark:text-zinc-400">
          <th scope="col" className="py-1 font-normal">
            Site
          </th>
          <th scope="col" className="py-1 text-right font-normal">
            Visits
          </th>
        </tr>
      </thead>
      <tbody>
        {referrers.map((r) => (
          <tr key={r.host ?? ""} className="border-t border-zinc-200 dark:border-zinc-800">
            <td className="break-all py-1">{r.host ?? "Direct, an app or a scanned code"}</td>
            <td className="py-1 text-right tabular-nums">{r.visit_count}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
