/**
 * lib/metrics and GET /metrics (app/metrics/route.ts): off without METRICS_TOKEN (nothing
 * recorded, 404), bearer-protected when on, Prometheus text with the recorded series and
 * the gauges read from their sources at scrape time.
 */
import { afterEach, describe, expect, it } from "vitest";
import { GET } from "@/app/metrics/route";
import { resetEnv } from "@/lib/config/env";
import {
  metrics,
  recordCacheLookup,
  recordJob,
  recordRateLimited,
  recordRequest,
  recordServedBytes,
  recordUploadedBytes,
  resetMetrics,
  setGaugeSource,
} from "@/lib/metrics/registry";

const TOKEN = "s3cret-metrics-token";

function turn(on: boolean): void {
  if (on) process.env.METRICS_TOKEN = TOKEN;
  else delete process.env.METRICS_TOKEN;
  resetEnv();
  resetMetrics(on);
}

const scrape = (authorization?: string) =>
  GET(new Request("http://localhost/metrics", { headers: authorization ? { authorization } : {} }));

afterEach(() => turn(false));

describe("metrics off (no METRICS_TOKEN)", () => {
  it("records nothing and /metrics is 404", async () => {
    turn(false);
    expect(metrics()).toBeNull();
    recordRequest("getPost", "api", 200, 0.001); // a no-op, not a throw
    const response = await scrape(`Bearer ${TOKEN}`);
    expect(response.status).toBe(404);
    expect(response.headers.get("cache-control")).toBe("no-store");
  });
});

describe("metrics on", () => {
  it("refuses a missing or wrong bearer token with 401 and a challenge", async () => {
    turn(true);
    for (const header of [undefined, "Bearer wrong-token-of-other-len", `Bearer ${TOKEN}x`, `Basic ${TOKEN}`]) {
      const response = await scrape(header);
      expect(response.status, String(header)).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
    }
  });

  it("serves the recorded series in Prometheus text format", async () => {
    turn(true);
    recordRequest("getPost", "api", 200, 0.002);
    recordRequest("getPost", "api", 200, 0.004);
    recordRequest("getPost", "relay", 404, 0.001);
    recordUploadedBytes("upload", 1000);
    recordServedBytes("cdn", 63_000);
    recordRateLimited("upload");
    recordCacheLookup("posts", true);
    recordCacheLookup("posts", false);
    recordJob("hls", "done", 3.5);
    const response = await scrape(`Bearer ${TOKEN}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(text).toContain('mediahost_http_requests_total{route="getPost",surface="api",status="200"} 2');
    expect(text).toContain('mediahost_http_requests_total{route="getPost",surface="relay",status="404"} 1');
    expect(text).toContain('mediahost_http_request_duration_seconds_count{route="getPost",surface="api"} 2');
    expect(text).toContain('mediahost_http_request_duration_seconds_bucket{le="0.005",route="getPost",surface="api"} 2');
    expect(text).toContain('mediahost_uploaded_bytes_total{kind="upload"} 1000');
    expect(text).toContain('mediahost_served_bytes_total{surface="cdn"} 63000');
    expect(text).toContain('mediahost_rate_limited_total{bucket="upload"} 1');
    expect(text).toContain('mediahost_cache_lookups_total{cache="posts",result="hit"} 1');
    expect(text).toContain('mediahost_cache_lookups_total{cache="posts",result="miss"} 1');
    expect(text).toContain('mediahost_job_duration_seconds_count{kind="hls",outcome="done"} 1');
    // Node's own figures come along (process CPU, heap, event loop lag).
    expect(text).toContain("mediahost_process_cpu_seconds_total");
    expect(text).toContain("mediahost_nodejs_eventloop_lag_seconds");
  });

  it("reads gauges from their sources at scrape time, with and without labels", async () => {
    turn(true);
    let waiting = 3;
    setGaugeSource("media_queue_waiting", () => waiting);
    setGaugeSource("jobs", async () => ({ queued: 2, running: 1 }));
    const first = await (await scrape(`Bearer ${TOKEN}`)).text();
    expect(first).toMatch(/^mediahost_media_queue_waiting 3$/m);
    expect(first).toContain('mediahost_jobs{state="queued"} 2');
    expect(first).toContain('mediahost_jobs{state="running"} 1');
    waiting = 0;
    setGaugeSource("jobs", () => ({ queued: 0 }));
    const second = await (await scrape(`Bearer ${TOKEN}`)).text();
    expect(second).toMatch(/^mediahost_media_queue_waiting 0$/m);
    // A label value that is gone from the source is gone from the scrape.
    expect(second).not.toContain('state="running"');
  });
});
