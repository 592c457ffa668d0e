/**
 * The short-link endpoints (docs/short-links.md): schemas, the view and handlers over
 * lib/links/links.ts. Personal keys only (a team key gets 401, as on every endpoint the
 * interface does not open to team keys). Creating a link is like uploading: any app key
 * may; listing and deleting read and change what the account owns, so an app key needs
 * gallery access there, as for GET /posts and DELETE /posts/{code}.
 */
import { z } from "zod";
import { defineRoute } from "../http/route";
import { decodeCursor, pageReply } from "../http/cursor";
import { pagingQuery } from "../http/parse";
import { createLink, deleteLink, LINK_URL_MAX_LENGTH, listLinks, MAX_CLICKS_LIMIT, shortUrlOf, type LinkRecord } from "../links/links";
import { parseExpiry } from "../posts/expiry-rules";
import { paged } from "../presenters/schemas";
import { accountOf } from "../types/principal";
import { codeParam } from "./params";

const BOTH = ["api", "relay"] as const;

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

const linkReply = z.object({ link: Link });

export const linkRoutes = [
  defineRoute({
    id: "createLink",
    method: "POST",
    path: "/links",
    surfaces: BOTH,
    summary: "Shorten a URL: the reply's short_url redirects to it",
    rateLimit: "links_write",
    body: createLinkBody,
    response: linkReply,
    async handler({ principal, body }) {
      const link = await createLink(accountOf(principal).id, {
        url: body.url,
        code: body.code,
        expiresAt: body.expires_at,
        maxClicks: body.max_clicks,
      });
      return { link: linkView(link) };
    },
  }),
  defineRoute({
    id: "listLinks",
    method: "GET",
    path: "/links",
    surfaces: BOTH,
    summary: "The caller's short links, newest first",
    galleryAccess: true,
    rateLimit: "links_read",
    query: pagingQuery,
    response: paged("links", Link),
    async handler({ principal, query }) {
      const after = query.cursor ? decodeCursor("listLinks", query.cursor) : undefined;
      const page = await listLinks(accountOf(principal).id, query.limit, after);
      const now = Date.now();
      return pageReply("links", "listLinks", {}, page, (l) => linkView(l, now));
    },
  }),
  defineRoute({
    id: "deleteLink",
    method: "DELETE",
    path: "/links/{code}",
    surfaces: BOTH,
    summary: "Delete a short link: its short URL answers 404 from now on",
    galleryAccess: true,
    rateLimit: "links_write",
    params: codeParam,
    response: z.object({ code: z.string(), deleted: z.literal(true) }),
    async handler({ principal, params }) {
      await deleteLink(accountOf(principal).id, params.code);
      return { code: params.code, deleted: true as const };
    },
  }),
];
