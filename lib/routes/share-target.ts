/**
 * The installed app's Web Share Target (docs/share-target.md), through the same route table as the
 * dashboard, so quotas, limits and webhooks apply; answered with a 303 to /dashboard/shared.
 */
import { isSameOriginOrBrowser } from "@/lib/auth/same-origin";
import { resolveWebSessionToken, sessionCookieValue, type WebSession } from "@/lib/auth/web-session";
import { env } from "@/lib/config/env";
import { errorBody } from "@/lib/http/respond";
import { dispatcher } from "./index";
import { uploadPrivacyOf } from "@/lib/users/upload-privacy";
import { readShareBody, SHARE_TEXT_LIMIT } from "@/lib/web/share-body";

const RESULT_PATH = "/dashboard/shared";

/** The one place that decides a shared post's privacy: the account's web default, else DEFAULT_UPLOAD_PRIVACY. */
export async function sharedPostPrivacy(session: WebSession): Promise<string> {
  return (await uploadPrivacyOf(session.user.id)).privacy;
}

function seeOther(path: string): Response {
  return new Response(null, {
    status: 303,
    headers: { location: new URL(path, env().PUBLIC_URL).toString(), "cache-control": "no-store" },
  });
}

const json = (status: number, type: Parameters<typeof errorBody>[0], message: string): Response =>
  Response.json(errorBody(type, message), { status, headers: { "cache-control": "no-store" } });

function resultPath(params: Record<string, string>): string {
  return `${RESULT_PATH}?${new URLSearchParams(params).toString()}`;
}

/** A lone http(s) URL: Android apps often share a link as `text`, not `url`. */
function loneUrl(value: string): string | null {
  const trimmed = value.trim();
  if (!/^https?:\/\/\S+$/i.test(trimmed)) return null;
  return URL.canParse(trimmed) ? trimmed : null;
}

function innerHeaders(request: Request): Headers {
  const headers = new Headers({ "sec-fetch-site": "same-origin" });
  for (const name of ["cookie", "x-client-ip", "x-forwarded-for", "x-request-id", "user-agent", "host"]) {
    const value = request.headers.get(name);
    if (value) headers.set(name, value);
  }
  return headers;
}

type ApiBody = { body: FormData | string | ReadableStream<Uint8Array>; contentType?: string; headers?: Record<string, string> };

async function callApi(request: Request, path: string, init: ApiBody): Promise<Response> {
  const headers = innerHeaders(request);
  if (init.contentType) headers.set("content-type", init.contentType);
  for (const [name, value] of Object.entries(init.headers ?? {})) headers.set(name, value);
  const url = new URL(`/api${path}`, new URL(request.url).origin);
  // duplex: a streamed body (the shared files) goes on as it arrives.
  return dispatcher("api")(new Request(url, { method: "POST", headers, body: init.body, duplex: "half" } as RequestInit));
}

async function errorType(response: Response): Promise<string> {
  const body: unknown = await response.json().catch(() => null);
  const type = (body as { error?: { type?: unknown } } | null)?.error?.type;
  return typeof type === "string" ? type : "internal";
}

async function upload(request: Request, session: WebSession, body: ApiBody): Promise<string> {
  const privacy = await sharedPostPrivacy(session);
  const response = await callApi(request, "/upload", { ...body, headers: { ...body.headers, "post-privacy": privacy } });
  if (!response.ok) return resultPath({ error: await errorType(response) });
  // The reply's top-level `url` is the file's (for ShareX); the post's share page is `post.url`.
  const reply = (await response.json()) as { post?: { url?: string }; posts?: { url?: string }[] };
  const urls = (reply.post ? [reply.post] : (reply.posts ?? [])).flatMap((post) => (post.url ? [post.url] : []));
  return resultPath({ kind: "post", url: urls[0] ?? "", count: String(urls.length) });
}

async function shorten(request: Request, target: string): Promise<string> {
  const response = await callApi(request, "/links", { body: JSON.stringify({ url: target }), contentType: "application/json" });
  if (!response.ok) return resultPath({ error: await errorType(response) });
  const reply = (await response.json()) as { link?: { short_url?: string } };
  return resultPath({ kind: "link", url: reply.link?.short_url ?? "" });
}

async function shareText(request: Request, session: WebSession, fields: Record<string, string>): Promise<string> {
  const text = (name: string): string => fields[name] ?? "";
  const target = loneUrl(text("url")) ?? loneUrl(text("text"));
  if (target) return shorten(request, target);
  const shared = [text("title"), text("text"), text("url")].filter((part) => part.trim() !== "").join("\n\n");
  if (shared === "") return resultPath({ error: "nothing_shared" });
  if (env().UPLOAD_FILES === "media") return resultPath({ error: "text_not_accepted" });
  const form = new FormData();
  form.append("file", new File([shared], "shared.txt", { type: "text/plain" }), "shared.txt");
  return upload(request, session, { body: form });
}

export async function handleShareTarget(request: Request): Promise<Response> {
  if (!isSameOriginOrBrowser(request.headers)) return json(403, "forbidden", "Cross-origin requests cannot change anything here.");
  const token = sessionCookieValue(request.headers.get("cookie"));
  const session = token ? await resolveWebSessionToken(token) : null;
  // The shared content cannot survive the sign-in round trip: the user shares again after it.
  if (!session) return seeOther(`/signin?callbackUrl=${encodeURIComponent("/dashboard")}`);

  const length = request.headers.get("content-length");
  const read = await readShareBody(request.headers.get("content-type") ?? "", length === null ? null : Number(length), request.body);
  switch (read.kind) {
    case "too_large":
      return json(
        413,
        "file_too_large",
        `A shared text or link is limited to ${SHARE_TEXT_LIMIT / 1024} KB; files have the upload's limits.`,
      );
    case "unreadable":
      return seeOther(resultPath({ error: "unreadable" }));
    case "files": {
      // The same bytes go on, so the length still holds: the upload can refuse an oversized body before reading it.
      const sameLength: Record<string, string> = length === null ? {} : { "content-length": length };
      return seeOther(await upload(request, session, { body: read.body, contentType: read.contentType, headers: sameLength }));
    }
    case "fields":
      return seeOther(await shareText(request, session, read.fields));
  }
}
