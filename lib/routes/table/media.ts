/** A post's files, conversion and the GIF list (API and Relay). */
import { z } from "zod";
import { defineRoute } from "../../http/route";
import { CONVERT_TARGET_HEADER } from "../../convert/target";
import { CONVERT_TARGETS } from "../../media";
import { fileParam, gifsQuery } from "../params";
import { paged, Post } from "../../presenters/schemas";
import { handleConvert } from "../convert";
import { handleGifs } from "../gifs";
import { handleDeleteFile } from "../posts";
import { BOTH, PERSONAL_AND_TEAM, deleted } from "./shared";

const deleteFile = defineRoute({
  id: "deleteFile",
  method: "DELETE",
  path: "/posts/{code}/files/{name}",
  surfaces: BOTH,
  summary: "Remove one file of a post",
  keys: PERSONAL_AND_TEAM,
  galleryAccess: true,
  rateLimit: "posts_delete",
  params: fileParam,
  response: deleted("name"),
  handler: ({ principal, surface, params }) => handleDeleteFile(principal, surface, params.code, params.name),
});

const convert = defineRoute({
  id: "convert",
  method: "POST",
  path: "/convert",
  surfaces: BOTH,
  summary: "Convert one image or video; the converted file is the reply",
  keys: PERSONAL_AND_TEAM,
  refusesLapsedTeam: true,
  rateLimit: "convert",
  multipart: { fields: { file: "The file to convert (only the first is read)." } },
  headers: {
    [CONVERT_TARGET_HEADER]: {
      description: "The format to convert to (missing or other values: 400 invalid_request).",
      required: true,
      schema: z.enum(CONVERT_TARGETS),
    },
  },
  response: { binary: "The converted file as an attachment" },
  handler: ({ principal, request }) => handleConvert(principal, request),
});

const gifs = defineRoute({
  id: "listGifs",
  method: "GET",
  path: "/gifs",
  surfaces: BOTH,
  summary: "Public posts whose first file is a GIF, newest first",
  auth: "optional",
  rateLimit: "gifs",
  query: gifsQuery,
  response: paged("posts", Post),
  handler: ({ principal, surface, query }) => handleGifs(principal, surface, query),
});

export const mediaRoutes = [deleteFile, convert, gifs];
