/** Pieces several areas share; one area's schema lives beside its handler (docs/architecture.md, "One place per kind"). */
import { z } from "zod";
import { LIMITS, limitedText, pagingQuery } from "@/lib/http/parse";
import { SESSION_NAME_MAX_LENGTH } from "@/lib/sessions/sessions";
import { QR_FORMATS, QR_SIZE_DEFAULT, QR_SIZE_MAX, QR_SIZE_MIN } from "@/lib/links/qr";

export const codeParam = z.object({
  code: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "code is not a valid share code."),
});
export const idParam = z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_@.-]+$/, "id is not a valid id."),
});

export const pageQuery = pagingQuery;

export const reportBody = z.object({ reason: limitedText("reason", LIMITS.reason).nullable().optional() });

/** Control characters other than line breaks and tabs: invisible and they break layouts. */
export const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
export const LINE_BREAK = /[\r\n\t]/;

export const deviceField = z
  .string()
  .max(SESSION_NAME_MAX_LENGTH, `device must be at most ${SESSION_NAME_MAX_LENGTH} characters.`)
  .refine((s) => !CONTROL.test(s) && !LINE_BREAK.test(s), "device must be one line without control characters.")
  .optional()
  .describe("Name shown in GET /sessions; default: read from the User-Agent");

const qrSizeMessage = `size must be a whole number of pixels from ${QR_SIZE_MIN} to ${QR_SIZE_MAX}.`;

export const qrQuery = z.object({
  format: z
    .enum(QR_FORMATS, { error: `format must be one of ${QR_FORMATS.join(", ")}.` })
    .default("svg")
    .describe("svg (default) or png"),
  size: z
    .string()
    .regex(/^\d{1,5}$/, qrSizeMessage)
    .transform(Number)
    .refine((n) => n >= QR_SIZE_MIN && n <= QR_SIZE_MAX, qrSizeMessage)
    .optional()
    .describe(`Width and height in pixels, ${QR_SIZE_MIN} to ${QR_SIZE_MAX}; default ${QR_SIZE_DEFAULT}`),
  download: z
    .enum(["true", "false"], { error: "download must be true or false." })
    .optional()
    .describe("true: sent as an attachment (qr-{code}.svg or .png) to save rather than show"),
});

/** The QR image as the reply: cached briefly by the caller's browser only (a private post's URL is the owner's). */
export function qrResponse(image: { contentType: string; bytes: Uint8Array }, code: string, format: string, download: boolean): Response {
  return new Response(image.bytes as BodyInit, {
    status: 200,
    headers: {
      "content-type": image.contentType,
      "content-length": String(image.bytes.byteLength),
      "x-content-type-options": "nosniff",
      "cache-control": "private, max-age=300",
      // An SVG opened on its own runs nothing: ours holds no script, and this keeps it so.
      "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox",
      ...(download ? { "content-disposition": `attachment; filename="qr-${code}.${format}"` } : {}),
    },
  });
}
