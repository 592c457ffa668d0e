"use client";
/**
 * Small SVG charts (no chart library): a calendar heatmap of daily uploads and a bar
 * chart of a daily series. Every chart has a text alternative (title and a summary).
 */
import { useEffect, useRef } from "react";
import { countOf } from "@/components/plural";
import { formatBytes } from "./ui";

const DAY_MS = 86_400_000;
const CELL = 11;
const GAP = 2;
const LEVELS = [
  "fill-zinc-200 dark:fill-zinc-800",
  "fill-brand-100 dark:fill-brand-700/60",
  "fill-brand-400 dark:fill-brand-600",
  "fill-brand-600 dark:fill-brand-500",
  "fill-brand-700 dark:fill-brand-400",
];

export interface HeatmapDay {
  day: string;
  upload_count: number;
  bytes: number;
}

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** 365 days ending today (UTC), in week columns starting on Sunday, like a contribution graph. */
export function UploadHeatmap({ history, today }: { history: HeatmapDay[]; today: string }) {
  // On a narrow screen the calendar scrolls; start at today's end, the part people look for.
  const scroller = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (scroller.current) scroller.current.scrollLeft = scroller.current.scrollWidth;
  }, []);
  const byDay = new Map(history.map((d) => [d.day, d]));
  const end = Date.parse(`${today}T00:00:00Z`);
  const start = end - 364 * DAY_MS;
  const firstColumnStart = start - new Date(start).getUTCDay() * DAY_MS;
  const max = Math.max(1, ...history.map((d) => d.upload_count));
  const cells: { x: number; y: number; day: string; count: number; bytes: number }[] = [];
  const months: { x: number; label: string }[] = [];
  for (let t = start; t <= end; t += DAY_MS) {
    const column = Math.floor((t - firstColumnStart) / (7 * DAY_MS));
    const date = new Date(t);
    const entry = byDay.get(utcDay(t));
    cells.push({
      x: column * (CELL + GAP),
      y: date.getUTCDay() * (CELL + GAP) + 14,
      day: utcDay(t),
      count: entry?.upload_count ?? 0,
      bytes: entry?.bytes ?? 0,
    });
    if (date.getUTCDate() === 1)
      months.push({ x: column * (CELL + GAP), label: date.toLocaleString("en", { month: "short", timeZone: "UTC" }) });
  }
  const columns = Math.floor((end - firstColumnStart) / (7 * DAY_MS)) + 1;
  const width = columns * (CELL + GAP);
  const height = 7 * (CELL + GAP) + 14;
  const level = (count: number) => (count === 0 ? 0 : Math.min(4, 1 + Math.floor(((count - 1) / max) * 4)));
  return (
    <div ref={scroller} className="overflow-x-auto">
      <svg
        role="img"
        aria-label={`Uploads per day over the last 365 days: ${countOf(
          history.reduce((n, d) => n + d.upload_count, 0),
          "upload",
        )} on ${countOf(history.length, "day")}`}
        width={width}
        height={height}
        className="text-zinc-500 dark:text-zinc-400"
      >
        {months.map((m) => (
          <text key={`${m.x}-${m.label}`} x={m.x} y={10} className="fill-current text-[9px]">
            {m.label}
          </text>
        ))}
        {cells.map((c) => (
          <rect
            key={c.day}
            x={c.x}
            y={c.y}
            width={CELL}
            height={CELL}
            rx={2}
            className={LEVELS[level(c.count)]}
            data-day={c.day}
            data-count={c.count}
          >
            <title>{`${c.day}: ${countOf(c.count, "upload")}${c.bytes ? `, ${formatBytes(c.bytes)}` : ""}`}</title>
          </rect>
        ))}
      </svg>
    </div>
  );
}

/** Vertical bars for a daily series, with the maximum labelled. */
export function BarChart({
  label,
  points,
  format = String,
}: {
  label: string;
  points: { day: string; value: number }[];
  format?: (n: number) => string;
}) {
  const width = 600;
  const height = 140;
  const max = Math.max(1, ...points.map((p) => p.value));
  const step = width / Math.max(1, points.length);
  const total = points.reduce((n, p) => n + p.value, 0);
  return (
    <figure className="space-y-1">
      <figcaption className="flex justify-between text-sm">
        <span className="font-medium">{label}</span>
        <span className="text-zinc-500 dark:text-zinc-400">
          total {format(total)} · peak {format(max === 1 && total === 0 ? 0 : max)}
        </span>
      </figcaption>
      <svg
        role="img"
        aria-label={`${label}: total ${format(total)}`}
        viewBox={`0 0 ${width} ${height}`}
        preserveAspectRatio="none"
        className="h-32 w-full"
      >
        <line x1={0} y1={height - 0.5} x2={width} y2={height - 0.5} className="stroke-zinc-300 dark:stroke-zinc-700" />
        {points.map((p, i) => {
          const h = (p.value / max) * (height - 4);
          return (
            <rect
              key={p.day}
              x={i * step + step * 0.15}
              y={height - h}
              width={Math.max(1, step * 0.7)}
              height={h}
              className="fill-brand-500"
            >
              <title>{`${p.day}: ${format(p.value)}`}</title>
            </rect>
          );
        })}
      </svg>
      {points.length > 0 && (
        <div className="flex justify-between text-xs text-zinc-500 dark:text-zinc-400">
          <span>{points[0].day}</span>
          <span>{points[points.length - 1].day}</span>
        </div>
      )}
    </figure>
  );
}
