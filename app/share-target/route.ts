/**
 * The Web Share Target of the installed app (docs/share-target.md). The phone's share sheet
 * POSTs multipart/form-data (title, text, url, file...). Files, and text when UPLOAD_FILES
 * allows it, go to POST /api/upload; a URL becomes a short link through POST /api/links:
 * the same route table the dashboard calls, so quotas, rate limits and webhooks apply as
 * for a dashboard upload. The answer is a 303 to /dashboard/shared with the result.
 */
import { NextResponse } from "next/server";
import { isSameOriginOrBrowser } from "@/lib/auth/same-origin";
import { resolveWebSessionToken, sessionCookieValue } from "@/lib/auth/web-session";
import { uploadPrivacyOf } from "@/lib/users/upload-privacy";
import { env } from "@/lib/config/env";
import { errorBody } from "@/lib/http/respond";
import { dispatcher } from "@/lib/routes";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const RESULT_PATH = "/dashboard/shared";

function seeOther(path: string): NextResponse {
  return NextResponse.redirect(new URL(path, env().PUBLIC_URL), { status: 303, headers: { "cache-control": "no-store" } });
}

function resultPath(params: Record<string, string>): string {
  return `${RESULT_PATH}?${new URLSearchParams(params).toString()}`;
}

/** A lone http(s) URL: Android apps often share a link as `text`, not `url`. */
function loneUrl(value: string): string | null {
  const trimmed = value.trim();
  if (!/^https?:\/\/\S+$/i.test(trimmed)) return null;
  return URL.canParse(trimmed) ? trimmed : null;
}

/** The same request headers a dashboard fetch would carry: the cookie, the client's address, same-origin. */
function innerHeaders(request: Request): Headers {
  const headers = new Headers({ "sec-fetch-site": "same-origin" });
  for (const name of ["cookie", "x-client-ip", "x-forwarded-for", "x-request-id", "user-agent", "host"]) {
    const value = request.headers.get(name);
    if (value) headers.set(name, value);
  }
  return headers;
}

async function callApi(
  request: Request,
  path: string,
  init: { body: FormData | string; contentType?: string; privacy?: string },
): Promise<Response> {
  const headers = innerHeaders(request);
  if (init.contentType) headers.set("content-type", init.contentType);
  if (init.privacy) headers.set("post-privacy", init.privacy);
  const url = new URL(`/api${path}`, new URL(request.url).origin);
  return dispatcher("api")(new Request(url, { method: "POST", headers, body: init.body }));
}

/** The error's type, for /dashboard/shared to put in its own words (lib/web/error-words.ts). */
async function errorType(response: Response): Promise<string> {
  const body: unknown = await response.json().catch(() => null);
  const type = (body as { error?: { type?: unknown } } | null)?.error?.type;
  return typeof type === "string" ? type : "internal";
}

/** Shared files and texts get the account's default privacy (lib/users/upload-privacy.ts), as the dashboard's uploads do. */
async function upload(request: Request, files: File[], privacy: string): Promise<string> {
  const form = new FormData();
  for (const file of files) form.append("file", file, file.name || "shared");
  const response = await callApi(request, "/upload", { body: form, privacy });
  if (!response.ok) return resultPath({ error: await errorType(response) });
  // The reply's top-level `url` is the file's (for ShareX); the post's share page is `post.url`.
  const body = (await response.json()) as { post?: { url?: string }; posts?: { url?: string }[] };
  const urls = (body.post ? [body.post] : (body.posts ?? [])).flatMap((post) => (post.url ? [post.url] : []));
  return resultPath({ kind: "post", url: urls[0] ?? "", count: String(urls.length) });
}

async function shorten(request: Request, target: string): Promise<string> {
  const response = await callApi(request, "/links", { body: JSON.stringify({ url: target }), contentType: "application/json" });
  if (!response.ok) return resultPath({ error: await errorType(response) });
  const body = (await response.json()) as { link?: { short_url?: string } };
  return resultPath({ kind: "link", url: body.link?.short_url ?? "" });
}

export async function POST(request: Request): Promise<NextResponse> {
  if (!isSameOriginOrBrowser(request.headers)) {
    return NextResponse.json(errorBody("forbidden", "Cross-origin requests cannot change anything here."), { status: 403 });
  }
  const token = sessionCookieValue(request.headers.get("cookie"));
  const session = token ? await resolveWebSessionToken(token) : null;
  // The shared content cannot survive the sign-in round trip: the user shares again after it.
  if (!session) return seeOther(`/signin?callbackUrl=${encodeURIComponent("/dashboard")}`);

  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    return seeOther(resultPath({ error: "unreadable" }));
  }
  const text = (name: string): string => {
    const value = form.get(name);
    return typeof value === "string" ? value : "";
  };
  const files = form.getAll("file").filter((value): value is File => typeof value !== "string" && value.size > 0);
  const { privacy } = await uploadPrivacyOf(session.user.id);
  if (files.length > 0) return seeOther(await upload(request, files, privacy));

  const target = loneUrl(text("url")) ?? loneUrl(text("text"));
  if (target) return seeOther(await shorten(request, target));

  const shared = [text("title"), text("text"), text("url")].filter((part) => part.trim() !== "").join("\n\n");
  if (shared === "") return seeOther(resultPath({ error: "nothing_shared" }));
  if (env().UPLOAD_FILES === "media") {
    return seeOther(resultPath({ error: "text_not_accepted" }));
  }
  const paste = new File([shared], "shared.txt", { type: "text/plain" });
  return seeOther(await upload(request, [paste], privacy));
}
