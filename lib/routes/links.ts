/**
 * Handlers of the links area (docs/short-links.md). Creating a link is like uploading (any app key);
 * listing and deleting need gallery access, as for GET /posts.
 */
import { z } from "zod";
import { decodeCursor, pageReply } from "@/lib/http/cursor";
import type { RouteContext } from "@/lib/http/route";
import { createLink, deleteLink, getLink, LINK_URL_MAX_LENGTH, listLinks, MAX_CLICKS_LIMIT } from "@/lib/links/links";
import { drawQr } from "@/lib/links/qr";
import { DEFAULT_VISIT_RANGE, linkVisits, VISIT_RANGES } from "@/lib/links/visits";
import { parseExpiry } from "@/lib/posts/expiry-rules";
import { linkView, linkVisitsView } from "@/lib/replies/links";
import { accountOf } from "@/lib/types/principal";
import { type codeParam, type pageQuery, type qrQuery, qrResponse } from "./params";

const maxClicksMessage = `max_clicks must be an integer from 1 to ${MAX_CLICKS_LIMIT} or null.`;
const urlField = z
  .string({ error: "url must be a string." })
  .max(LINK_URL_MAX_LENGTH * 3, `url must be at most ${LINK_URL_MAX_LENGTH} characters.`);

export const createLinkBody = z.object({
  url: urlField.describe(`An http or https URL of at most ${LINK_URL_MAX_LENGTH} characters`),
  code: z.string({ error: "code must be a string." }).optional().describe("3 to 32 of A-Z a-z 0-9 _ -; default: 7 random characters"),
  expires_at: z
    .string({ error: "expires_at must be a string or null." })
    .nullable()
    .optional()
    .transform((v, ctx) => {
      if (v === null || v === undefined) return null;
      try {
        return parseExpiry(v, "expires_at");
      } catch (error) {
        ctx.addIssue({ code: "custom", message: error instanceof Error ? error.message : "expires_at is not valid." });
        return z.NEVER;
      }
    })
    .meta({ description: "ISO 8601 time with a zone, or a duration from now (30m, 1h, 7d, 2w)" }),
  max_clicks: z
    .number({ error: maxClicksMessage })
    .int({ error: maxClicksMessage })
    .min(1, { error: maxClicksMessage })
    .max(MAX_CLICKS_LIMIT, { error: maxClicksMessage })
    .nullable()
    .optional()
    .meta({ description: "Redirects after which the link answers 404" }),
});

export const linkVisitsQuery = z.object({
  range: z
    .enum(VISIT_RANGES, { error: `range must be one of ${VISIT_RANGES.join(", ")}.` })
    .default(DEFAULT_VISIT_RANGE)
    .describe("Days counted back from today (UTC): 7d, 30d (default), 90d or 365d"),
});

export async function handleCreateLink({ principal, body }: RouteContext<{ body: typeof createLinkBody }>) {
  const link = await createLink(accountOf(principal).id, {
    url: body.url,
    code: body.code,
    expiresAt: body.expires_at,
    maxClicks: body.max_clicks,
  });
  return { link: linkView(link) };
}

export async function handleListLinks({ principal, query }: RouteContext<{ query: typeof pageQuery }>) {
  const after = query.cursor ? decodeCursor("listLinks", query.cursor) : undefined;
  const page = await listLinks(accountOf(principal).id, query.limit, after);
  const now = Date.now();
  return pageReply("links", "listLinks", {}, page, (l) => linkView(l, now));
}

export async function handleDeleteLink({ principal, params }: RouteContext<{ params: typeof codeParam }>) {
  await deleteLink(accountOf(principal).id, params.code);
  return { code: params.code, deleted: true as const };
}

/** GET /links/{code}/qr: the link object's short_url as a QR code (docs/qr-and-visits.md). */
export async function handleGetLinkQr({ principal, params, query }: RouteContext<{ params: typeof codeParam; query: typeof qrQuery }>) {
  const link = await getLink(accountOf(principal).id, params.code);
  const image = await drawQr(linkView(link).short_url, query.format, query.size);
  return qrResponse(image, link.code, query.format, query.download === "true");
}

export async function handleGetLinkVisits({
  principal,
  params,
  query,
}: RouteContext<{ params: typeof codeParam; query: typeof linkVisitsQuery }>) {
  return linkVisitsView(await linkVisits(accountOf(principal).id, params.code, query.range));
}
