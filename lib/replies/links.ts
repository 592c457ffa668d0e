/** The short-link object (docs/short-links.md) with the view that builds it from lib/links/links.ts records. */
import { z } from "zod";
import { shortUrlOf, type LinkRecord } from "@/lib/links/links";
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
