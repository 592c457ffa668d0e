/** Resumable uploads (tus 1.0, docs/resumable-uploads.md). */
import { defineRoute } from "@/lib/http/route";
import {
  handleTusCreate,
  handleTusDelete,
  handleTusHead,
  handleTusPatch,
  TUS_REPLY_HEADERS,
  tusIdParam,
  tusOptionsHeaders,
} from "@/lib/routes/tus";
import { BOTH, PERSONAL_AND_TEAM } from "./shared";
const TUS_REQUEST = { "tus-resumable": { description: "Required on every request but OPTIONS: `1.0.0` (else 412).", required: true } };
const TUS_STATE = {
  "upload-offset": "Bytes received so far.",
  "upload-expires": "When the unfinished upload and its bytes are removed (RFC 7231 date).",
  "upload-post": "Share code of the post the finished upload became (GET /posts/{code}).",
};
const tusRoute = {
  surfaces: BOTH,
  keys: PERSONAL_AND_TEAM,
  refusesLapsedTeam: true,
  replyHeaders: TUS_REPLY_HEADERS,
  optionsHeaders: tusOptionsHeaders,
} as const;

const tusCreate = defineRoute({
  ...tusRoute,
  id: "tusCreate",
  method: "POST",
  path: "/tus",
  summary: "Start a resumable (tus 1.0) upload; the body may carry the first bytes (creation-with-upload)",
  rateLimit: "upload",
  rawBody: "application/offset+octet-stream",
  headers: {
    ...TUS_REQUEST,
    "upload-length": {
      description:
        "Size of the file in bytes (required; over the plan's file cap: 413). Reserved from the weekly quota until the upload ends.",
      required: true,
    },
    "upload-metadata": {
      description:
        "tus metadata, `key base64value` pairs: `filename`, and POST /upload's `post-privacy`, `include-metadata`, `priority`, `post-type`; `folder` (a folder id or name, found or created now; docs/folders.md); `domain` (as POST /upload's `x-mediahost-domain`, checked now; docs/domains.md); `post` (a share code) appends to that post instead.",
    },
    folder: {
      description:
        "As POST /upload's `folder` header (id or name, percent-encoded UTF-8), when Upload-Metadata has no `folder`. Ignored for team keys and with `post`.",
    },
    "upload-defer-length": {
      description: "Not supported (no creation-defer-length extension): a request that sends it gets 400 invalid_request.",
    },
  },
  reply: {
    status: 201,
    description: "Created; `Location` is the upload's URL.",
    headers: { location: "URL of the upload (HEAD, PATCH, DELETE).", ...TUS_STATE },
  },
  handler: handleTusCreate,
});

const tusHead = defineRoute({
  ...tusRoute,
  id: "tusHead",
  rateLimit: "tus",
  method: "HEAD",
  path: "/tus/{id}",
  summary: "Where a resumable upload stands (offset, length, metadata; the post once finished)",
  params: tusIdParam,
  headers: TUS_REQUEST,
  reply: {
    status: 200,
    description: "The upload's state (no body); 410 once expired.",
    headers: { "upload-length": "Size of the file.", "upload-metadata": "As sent at creation.", ...TUS_STATE },
  },
  handler: handleTusHead,
});

const tusPatch = defineRoute({
  ...tusRoute,
  id: "tusPatch",
  rateLimit: "tus",
  method: "PATCH",
  path: "/tus/{id}",
  summary: "Send the next bytes of a resumable upload; the last ones make the post",
  params: tusIdParam,
  rawBody: "application/offset+octet-stream",
  headers: {
    ...TUS_REQUEST,
    "upload-offset": { description: "Where these bytes start: the upload's current offset (else 409).", required: true },
  },
  reply: {
    status: 204,
    description: "Stored. When the file is complete it went through POST /upload's pipeline, and its errors are answered here.",
    headers: TUS_STATE,
  },
  handler: handleTusPatch,
});

const tusDelete = defineRoute({
  ...tusRoute,
  id: "tusDelete",
  rateLimit: "tus",
  method: "DELETE",
  path: "/tus/{id}",
  summary: "Terminate a resumable upload: its bytes and its reserved quota go",
  params: tusIdParam,
  headers: TUS_REQUEST,
  reply: { status: 204, description: "Terminated.", headers: {} },
  handler: handleTusDelete,
});

export const tusRoutes = [tusCreate, tusHead, tusPatch, tusDelete];
