/** Uploads per UTC day as plain SVG bars: no chart library, and readable at phone width. */
import { card, muted } from "@/components/dashboard/ui";
import { countOf } from "@/components/plural";
import type { Overview } from "@/lib/admin/overview";

export function UploadsChart({ days }: { days: Overview["uploadsPerDay"] }) {
  const max = Math.max(1, ...days.map((d) => d.uploads));
  const total = days.reduce((n, d) => n + d.uploads, 0);
  const width = days.length * 10;
  const height = 100;
  return (
    <figure className={card}>
      <figcaption className="mb-2 flex flex-wrap items-baseline justify-between gap-2">
        <span className="font-medium">Uploads per day</span>
        <span className={muted}>
          {countOf(total, "upload")} in {countOf(days.length, "day")} (UTC)
        </span>
      </figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none" className="h-32 w-full" role="img" aria-label="Uploads per day">
        {days.map((d, i) => {
          const h = (d.uploads / max) * (height - 4);
          return (
            <rect
              key={d.day}
              x={i * 10 + 1}
              y={height - h}
              width={8}
              height={h}
              className="fill-brand-500"
              data-day={d.day}
              data-uploads={d.uploads}
            >
              <title>{`${d.day}: ${d.uploads} ${d.uploads === 1 ? "upload" : "uploads"}`}</title>
            </rect>
          );
        })}
      </svg>
      <div className={`mt-1 flex justify-between ${muted}`}>
        <span>{days[0]?.day}</span>
        <span>{days.at(-1)?.day}</span>
      </div>
    </figure>
  );
}
