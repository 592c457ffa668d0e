/**
 * Prometheus metrics (docs/metrics.md). Off, every recorder returns after one check; on, it bumps
 * a child cached per label combination, never a label-object hash per call. Gauge sources
 * register themselves, so this module imports no layer above it. One registry on globalThis:
 * the fast lane and Next's route handlers load their own copies of this module.
 */
import type { Counter, Histogram, Registry } from "prom-client";
import { optionalPackage } from "@/lib/config/packages";
import { env } from "@/lib/config/env";

export type GaugeSource = () => number | Record<string, number> | Promise<number | Record<string, number>>;

/** Gauges read at scrape time; the source answers one value, or one per label value. */
export const GAUGES = {
  media_queue_waiting: { help: "Media jobs (image, video, conversion) waiting for a slot", label: null },
  media_queue_running: { help: "Media jobs running now", label: null },
  media_queue_waiting_bytes: { help: "Bytes on disk held by media jobs waiting for a slot", label: null },
  jobs: { help: "Background jobs by state", label: "state" },
  db_pool_connections: { help: "Database connections by state (total, idle, waiting clients)", label: "state" },
} as const satisfies Record<string, { help: string; label: string | null }>;

export type GaugeName = keyof typeof GAUGES;

export interface Metrics {
  registry: Registry;
  requests: Counter<"route" | "surface" | "status">;
  duration: Histogram<"route" | "surface">;
  bytesUploaded: Counter<"kind">;
  bytesServed: Counter<"surface">;
  rateLimited: Counter<"bucket">;
  cache: Counter<"cache" | "result">;
  jobDuration: Histogram<"kind" | "outcome">;
  /** Bound children by joined label values: one Map look-up per record. */
  children: Map<string, { inc(value?: number): void } | { observe(value: number): void }>;
}

const PREFIX = "mediahost_";
const holder = globalThis as unknown as { __mediahostMetrics?: Metrics | null; __mediahostGaugeSources?: Map<GaugeName, GaugeSource> };
/** Kept whether metrics are on or not, so a source registered at import time is never lost. */
const sources: Map<GaugeName, GaugeSource> = (holder.__mediahostGaugeSources ??= new Map<GaugeName, GaugeSource>());

export function metrics(): Metrics | null {
  if (holder.__mediahostMetrics === undefined) holder.__mediahostMetrics = env().METRICS_TOKEN ? createMetrics() : null;
  return holder.__mediahostMetrics;
}

/** Tests: metrics on (a fresh registry) or off, whatever the environment says. */
export function resetMetrics(enabled: boolean): void {
  holder.__mediahostMetrics = enabled ? createMetrics() : null;
}

type PromClient = typeof import("prom-client");
/** What the record… functions below bump; the registry and the children cache are added around them. */
type Recorded = Omit<Metrics, "registry" | "children">;

function createMetrics(): Metrics {
  // Loaded only when metrics are on (lib/config/packages.ts).
  const prom = optionalPackage<PromClient>("prom-client");
  const registry = new prom.Registry();
  prom.collectDefaultMetrics({ register: registry, prefix: PREFIX });
  registerGauges(prom, registry);
  return { registry, ...createRecorded(prom, registry), children: new Map() };
}

/** The gauges of GAUGES: each asks its source (setGaugeSource) at scrape time, and shows nothing until one is registered. */
function registerGauges({ Gauge }: PromClient, registry: Registry): void {
  for (const [name, { help, label }] of Object.entries(GAUGES) as [GaugeName, (typeof GAUGES)[GaugeName]][]) {
    new Gauge({
      name: `${PREFIX}${name}`,
      help,
      labelNames: label ? [label] : [],
      registers: [registry],
      async collect() {
        const source = sources.get(name);
        if (!source) return;
        const value = await source();
        this.reset();
        if (typeof value === "number") this.set(value);
        else if (label) for (const [key, count] of Object.entries(value)) this.set({ [label]: key }, count);
      },
    });
  }
}

function createRecorded({ Counter, Histogram }: PromClient, registry: Registry): Recorded {
  const registers = [registry];
  return {
    requests: new Counter({
      name: `${PREFIX}http_requests_total`,
      help: "API, Relay and file requests by route id, surface and status",
      labelNames: ["route", "surface", "status"],
      registers,
    }),
    duration: new Histogram({
      name: `${PREFIX}http_request_duration_seconds`,
      help: "Time from the request's arrival to its reply's headers, by route id and surface",
      labelNames: ["route", "surface"],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    bytesUploaded: new Counter({
      name: `${PREFIX}uploaded_bytes_total`,
      help: "Bytes of files stored by uploads (as charged to quota), by kind (upload, append)",
      labelNames: ["kind"],
      registers,
    }),
    bytesServed: new Counter({
      name: `${PREFIX}served_bytes_total`,
      help: "Bytes of files sent (bodies of /cdn replies)",
      labelNames: ["surface"],
      registers,
    }),
    rateLimited: new Counter({
      name: `${PREFIX}rate_limited_total`,
      help: "Requests refused with 429 by rate-limit bucket",
      labelNames: ["bucket"],
      registers,
    }),
    cache: new Counter({
      name: `${PREFIX}cache_lookups_total`,
      help: "Look-ups of the read caches by cache and result (hit, miss)",
      labelNames: ["cache", "result"],
      registers,
    }),
    jobDuration: new Histogram({
      name: `${PREFIX}job_duration_seconds`,
      help: "Background and media job run time by kind and outcome",
      labelNames: ["kind", "outcome"],
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 1800],
      registers,
    }),
  };
}

type Bound<T> = { inc(value?: number): void } & T;

function child<T extends object>(m: Metrics, key: string, make: () => T): T {
  let found = m.children.get(key) as T | undefined;
  if (!found) {
    found = make();
    m.children.set(key, found as Bound<T>);
  }
  return found;
}

/** One API, Relay or /cdn request answered: its route id (or "cdn", "not_found"), surface, status and time. */
export function recordRequest(route: string, surface: string, status: number, seconds: number): void {
  const m = metrics();
  if (!m) return;
  child(m, `r\0${route}\0${surface}\0${status}`, () => m.requests.labels(route, surface, String(status))).inc();
  child(m, `d\0${route}\0${surface}`, () => m.duration.labels(route, surface)).observe(seconds);
}

export function recordUploadedBytes(kind: "upload" | "append", bytes: number): void {
  const m = metrics();
  if (m && bytes > 0) child(m, `u\0${kind}`, () => m.bytesUploaded.labels(kind)).inc(bytes);
}

export function recordServedBytes(surface: string, bytes: number): void {
  const m = metrics();
  if (m && bytes > 0) child(m, `s\0${surface}`, () => m.bytesServed.labels(surface)).inc(bytes);
}

export function recordRateLimited(bucket: string): void {
  const m = metrics();
  if (m) child(m, `l\0${bucket}`, () => m.rateLimited.labels(bucket)).inc();
}

export function recordCacheLookup(cache: string, hit: boolean): void {
  const m = metrics();
  if (m) child(m, `c\0${cache}\0${hit ? 1 : 0}`, () => m.cache.labels(cache, hit ? "hit" : "miss")).inc();
}

export function recordJob(kind: string, outcome: "done" | "failed" | "retried", seconds: number): void {
  const m = metrics();
  if (m) child(m, `j\0${kind}\0${outcome}`, () => m.jobDuration.labels(kind, outcome)).observe(seconds);
}

/** Where a scrape reads a gauge's value (the last source registered for a name wins). */
export function setGaugeSource(name: GaugeName, source: GaugeSource): void {
  sources.set(name, source);
}

export async function renderMetrics(): Promise<{ text: string; contentType: string } | null> {
  const m = metrics();
  if (!m) return null;
  return { text: await m.registry.metrics(), contentType: m.registry.contentType };
}
