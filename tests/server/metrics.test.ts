/**
 * GET /metrics on the real production server (fast lane and Next in one process): what
 * the API, Relay and /cdn answered, by route id, shows up in the scrape; uploads, cache
 * look-ups, rate-limit refusals and the media queue too. Off without METRICS_TOKEN.
 */
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixture } from "../support/media";
import { startTestServer, type TestServer } from "../support/server";
import { serverUser, serverApp } from "../support/server-accounts";

const TOKEN = "metrics-test-token";

/** The value of one series in the exposition text (0 when absent). */
function sample(text: string, series: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe("GET /metrics on a real server", () => {
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    server = await startTestServer({ METRICS_TOKEN: TOKEN });
    await serverUser(server, "metrics_user");
    key = String((await serverApp(server, "metrics_user", "M", { galleryAccess: true })).key);
  }, 180_000);
  afterAll(async () => {
    if (server) await server.stop();
  });

  const scrape = async (): Promise<string> => {
    const response = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    return response.text();
  };

  it("is refused without the token", async () => {
    expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
  });

  it("counts API, Relay and file requests by route id and status, with bytes and cache look-ups", async () => {
    const body = new FormData();
    body.append("file", new Blob([await readFile(await fixture("png"))], { type: "image/png" }), "m.png");
    const uploaded = await fetch(`${server.url}/api/upload`, {
      method: "POST",
      body,
      headers: { "api-key": key, "post-privacy": "public" },
    });
    expect(uploaded.status).toBe(200);
    const { post, url } = (await uploaded.json()) as { post: { code: string; files: { size: number }[] }; url: string };
    for (let i = 0; i < 3; i++)
      expect((await fetch(`${server.url}/api/posts/${post.code}`, { headers: { "api-key": key } })).status).toBe(200);
    expect((await fetch(`${server.url}/api/posts/NoSuchPost1`, { headers: { "api-key": key } })).status).toBe(404);
    expect((await fetch(`${server.url}/relay/discover`)).status).toBe(401);
    expect((await fetch(`${server.url}/api/no/such/endpoint`)).status).toBe(404);
    const file = await fetch(url);
    expect(file.status).toBe(200);
    await file.arrayBuffer();

    const text = await scrape();
    expect(sample(text, 'mediahost_http_requests_total{route="upload",surface="api",status="200"}')).toBe(1);
    expect(sample(text, 'mediahost_http_requests_total{route="getPost",surface="api",status="200"}')).toBe(3);
    expect(sample(text, 'mediahost_http_requests_total{route="getPost",surface="api",status="404"}')).toBe(1);
    expect(sample(text, 'mediahost_http_requests_total{route="discover",surface="relay",status="401"}')).toBe(1);
    expect(sample(text, 'mediahost_http_requests_total{route="unmatched",surface="api",status="404"}')).toBe(1);
    expect(sample(text, 'mediahost_http_request_duration_seconds_count{route="getPost",surface="api"}')).toBe(4);
    expect(sample(text, 'mediahost_uploaded_bytes_total{kind="upload"}')).toBe(post.files[0].size);
    expect(sample(text, 'mediahost_http_requests_total{route="cdnFile",surface="cdn",status="200"}')).toBe(1);
    expect(sample(text, 'mediahost_served_bytes_total{surface="cdn"}')).toBe(post.files[0].size);
    expect(sample(text, 'mediahost_cache_lookups_total{cache="keys",result="hit"}')).toBeGreaterThan(0);
    expect(sample(text, "mediahost_media_queue_waiting")).toBe(0);
    expect(text).toContain("mediahost_jobs");
  });

  it("counts rate-limit refusals by bucket", async () => {
    let limited = 0;
    for (let i = 0; i < 25 && !limited; i++) {
      const response = await fetch(`${server.url}/api/posts?limit=1`, { headers: { "api-key": key } });
      if (response.status === 429) limited++;
    }
    expect(limited).toBe(1);
    expect(sample(await scrape(), 'mediahost_rate_limited_total{bucket="posts_list"}')).toBe(1);
  });
});

describe("without METRICS_TOKEN", () => {
  it("/metrics is 404", async () => {
    const server = await startTestServer();
    try {
      expect((await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(404);
    } finally {
      await server.stop();
    }
  }, 180_000);
});
