/** Short links of the account (API and Relay; docs/short-links.md). */
import { defineRoute } from "@/lib/http/route";
import { LinkPage, LinkReply, LinkVisitsReply } from "@/lib/replies/links";
import { DeletedCode } from "@/lib/presenters/shared";
import {
  createLinkBody,
  handleCreateLink,
  handleDeleteLink,
  handleGetLinkQr,
  handleGetLinkVisits,
  handleListLinks,
  linkVisitsQuery,
} from "@/lib/routes/links";
import { codeParam, pageQuery, qrQuery } from "@/lib/routes/params";
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
  defineRoute({
    id: "getLinkQr",
    method: "GET",
    path: "/links/{code}/qr",
    surfaces: BOTH,
    summary: "The short URL as a QR code, SVG or PNG (docs/qr-and-visits.md)",
    galleryAccess: true,
    rateLimit: "qr",
    params: codeParam,
    query: qrQuery,
    response: { binary: "The QR code (format=svg or png)", mediaTypes: ["image/svg+xml", "image/png"] },
    handler: handleGetLinkQr,
  }),
  defineRoute({
    id: "getLinkVisits",
    method: "GET",
    path: "/links/{code}/visits",
    surfaces: BOTH,
    summary: "A short link's visits per day and per referring host (no visitor data is kept)",
    galleryAccess: true,
    rateLimit: "links_read",
    params: codeParam,
    query: linkVisitsQuery,
    response: LinkVisitsReply,
    handler: handleGetLinkVisits,
  }),
];
