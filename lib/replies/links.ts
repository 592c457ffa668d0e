/** The short-link object (docs/short-links.md) with the view that builds it from lib/links/links.ts records. */
import { z } from "zod";
import { shortUrlOf, type LinkRecord } from "@/lib/links/links";
import { VISIT_RANGES, type LinkVisits } from "@/lib/links/visits";
import { paged } from "@/lib/presenters/shared";

export const Link = z
  .object({
    code: z.string(),
    url: z.string().describe("The target"),
    short_url: z.url().describe("SHORT_URL/{code} (default PUBLIC_URL/s/{code}): answers 302 to url"),
    click_count: z.number().int(),
    max_clicks: z.number().int().nullable(),
    expires_at: z.string().nullable(),
    active: z.boolean().describe("false once expired or used up: the short URL answers 404"),
    created_at: z.string(),
  })
  .meta({ id: "Link" });

export const LinkReply = z.object({ link: Link });
export const LinkPage = paged("links", Link);

export function linkView(link: LinkRecord, now = Date.now()): z.input<typeof Link> {
  const expired = link.expiresAt !== null && link.expiresAt.getTime() <= now;
  const usedUp = link.maxClicks !== null && link.clickCount >= link.maxClicks;
  return {
    code: link.code,
    url: link.url,
    short_url: shortUrlOf(link.code),
    click_count: link.clickCount,
    max_clicks: link.maxClicks,
    expires_at: link.expiresAt?.toISOString() ?? null,
    active: !expired && !usedUp,
    created_at: link.createdAt.toISOString(),
  };
}

/** GET /links/{code}/visits (docs/qr-and-visits.md). */
export const LinkVisitsReply = z
  .object({
    code: z.string(),
    range: z.enum(VISIT_RANGES),
    from: z.string().describe("First UTC day of the range, YYYY-MM-DD"),
    to: z.string().describe("Last UTC day of the range (today), YYYY-MM-DD"),
    visit_count: z.number().int().describe("Visits in the range"),
    days: z
      .array(z.object({ day: z.string(), visit_count: z.number().int() }))
      .describe("Every day of the range, oldest first, days without visits as 0"),
    referrers: z
      .array(
        z.object({
          host: z
            .string()
            .nullable()
            .describe("The referring page's host name; null: no referrer (an app, a typed address, a scanned QR code)"),
          visit_count: z.number().int(),
        }),
      )
      .describe("Up to 20 referring hosts, most visits first"),
  })
  .meta({ id: "LinkVisits" });

export function linkVisitsView(v: LinkVisits): z.input<typeof LinkVisitsReply> {
  return {
    code: v.code,
    range: v.range,
    from: v.from,
    to: v.to,
    visit_count: v.total,
    days: v.days.map((d) => ({ day: d.day, visit_count: d.visits })),
    referrers: v.hosts.map((h) => ({ host: h.host || null, visit_count: h.visits })),
  };
}
