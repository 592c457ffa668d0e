/** A post's files, conversion and the GIF list (API and Relay). */
import { defineRoute } from "@/lib/http/route";
import { CONVERT_TARGET_HEADER } from "@/lib/convert/target";
import { DeletedFile, PostPage } from "@/lib/presenters/posts";
import { convertTargetHeader, fileParam, gifsQuery, handleConvert, handleDeleteFile, handleListGifs } from "@/lib/routes/media";
import { BOTH, PERSONAL_AND_TEAM } from "./shared";

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
  response: DeletedFile,
  handler: handleDeleteFile,
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
      schema: convertTargetHeader,
    },
  },
  response: { binary: "The converted file as an attachment" },
  handler: handleConvert,
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
  response: PostPage,
  handler: handleListGifs,
});

export const mediaRoutes = [deleteFile, convert, gifs];
