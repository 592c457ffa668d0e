/**
 * Prometheus scrape endpoint (docs/metrics.md): the exposition text of lib/metrics, behind
 * `Authorization: Bearer $METRICS_TOKEN`. Without METRICS_TOKEN metrics are off and this
 * path is 404 like any unknown page, so an instance does not reveal that it could serve it.
 */
import { timingSafeEqual } from "node:crypto";
import { env } from "@/lib/config/env";
import { renderMetrics } from "@/lib/metrics/registry";

export const dynamic = "force-dynamic";

const NO_STORE = { "cache-control": "no-store" };

function authorized(header: string | null, token: string): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(header ?? "");
  if (!match) return false;
  const given = Buffer.from(match[1].trim());
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export async function GET(request: Request): Promise<Response> {
  const token = env().METRICS_TOKEN;
  const rendered = token ? await renderMetrics() : null;
  if (!token || !rendered)
    return new Response("Not found\n", { status: 404, headers: { ...NO_STORE, "content-type": "text/plain; charset=utf-8" } });
  if (!authorized(request.headers.get("authorization"), token)) {
    return new Response("Unauthorized\n", {
      status: 401,
      headers: { ...NO_STORE, "content-type": "text/plain; charset=utf-8", "www-authenticate": 'Bearer realm="metrics"' },
    });
  }
  return new Response(rendered.text, { headers: { ...NO_STORE, "content-type": rendered.contentType } });
}
