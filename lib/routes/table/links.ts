/** Short links of the account (API and Relay; docs/short-links.md). */
import { defineRoute } from "@/lib/http/route";
import { LinkPage, LinkReply } from "@/lib/replies/links";
import { DeletedCode } from "@/lib/presenters/shared";
import { createLinkBody, handleCreateLink, handleDeleteLink, handleListLinks } from "@/lib/routes/links";
import { codeParam, pageQuery } from "@/lib/routes/params";
import { BOTH } from "./shared";

export const linkRoutes = [
  defineRoute({
    id: "createLink",
    method: "POST",
    path: "/links",
    surfaces: BOTH,
    summary: "Shorten a URL: the reply's short_url redirects to it",
    rateLimit: "links_write",
    body: createLinkBody,
    response: LinkReply,
    handler: handleCreateLink,
  }),
  defineRoute({
    id: "listLinks",
    method: "GET",
    path: "/links",
    surfaces: BOTH,
    summary: "The caller's short links, newest first",
    galleryAccess: true,
    rateLimit: "links_read",
    query: pageQuery,
    response: LinkPage,
    handler: handleListLinks,
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
    response: DeletedCode,
    handler: handleDeleteLink,
  }),
];
