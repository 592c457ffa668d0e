/**
 * Load and what it costs: wrk in a process of its own, the CPU time of the server under test
 * from /proc, pinning to cores, and the server's RSS.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { loadavg } from "node:os";
import { join } from "node:path";
import { statusField } from "../support/server";
import type { Options, PairName } from "./options";

const CLOCK_TICKS = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;
const RSS_SAMPLE_MS = 50;
export const WRK_CPU = "0";
export const SERVER_CPU = "1";

/** Exits with how to install wrk when it is missing. */
export function requireWrk(): void {
  const probe = spawnSync("wrk", ["--version"], { encoding: "utf8" });
  if (probe.error) {
    console.error("bench:serve needs wrk (a C HTTP load generator): apt-get install -y wrk");
    process.exit(69);
  }
}

/** Seconds of CPU (user + system) of a process, or of one of its threads, from /proc. */
function cpuSeconds(path: string): number {
  try {
    const text = readFileSync(path, "utf8");
    // The command name (field 2) may hold spaces; fields after it are fixed.
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}

/** All threads of `pid` (existing and future ones) on `cpu`. */
export function pin(pid: number, cpu: string): void {
  const result = spawnSync("taskset", ["-a", "-c", "-p", cpu, String(pid)], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`taskset -a -c -p ${cpu} ${pid}: ${result.stderr || result.error}`);
}

/**
 * The main thread of `pid` alone on `mainCpu`; every other thread it has now (libuv's
 * file-system pool, V8's helpers) on `helperCpu`, beside wrk. With all threads on one core
 * a file server's pool took 25-30 % of it, so even a bare file server's main thread could
 * not reach the 90 % that shows it is saturated (docs/performance.md). Run after the
 * warm-up, once the pool exists; both sides are pinned alike.
 */
export function pinMainThread(pid: number, mainCpu: string, helperCpu: string): void {
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const cpu = Number(tid) === pid ? mainCpu : helperCpu;
    const result = spawnSync("taskset", ["-c", "-p", cpu, tid], { encoding: "utf8" });
    if (result.status !== 0 && existsSync(`/proc/${pid}/task/${tid}`))
      throw new Error(`taskset -c -p ${cpu} ${tid}: ${result.stderr || result.error}`);
  }
}

/**
 * The Lua script of a run. Fixed headers go in `wrk.headers` (no Lua per request). With a
 * key file, every request carries the next key, from requests formatted once in `init`.
 * `done` prints wrk's figures as one JSON line: exact counts and its latency histogram.
 */
function wrkScript(headers: Record<string, string>, keyFile: string | null, pipeline = 1): string {
  const lua = (s: string): string => JSON.stringify(s);
  const lines = Object.entries(headers).map(([name, value]) => `wrk.headers[${lua(name)}] = ${lua(value)}`);
  if (keyFile) {
    // Batches of `pipeline` requests, each with the next key (wrk counts the requests in a batch).
    lines.push(
      "local keyed, requests, count, at = {}, {}, 0, 0",
      "function init(args)",
      `  for key in io.lines(${lua(keyFile)}) do`,
      "    local h = {}",
      "    for k, v in pairs(wrk.headers) do h[k] = v end",
      '    h["api-key"] = key',
      "    keyed[#keyed + 1] = wrk.format(nil, nil, h)",
      "  end",
      "  for i = 1, #keyed do",
      "    local batch = {}",
      `    for j = 0, ${pipeline - 1} do batch[#batch + 1] = keyed[(i + j - 1) % #keyed + 1] end`,
      "    count = count + 1",
      "    requests[count] = table.concat(batch)",
      "  end",
      "end",
      "function request()",
      "  at = at % count + 1",
      "  return requests[at]",
      "end",
    );
  } else if (pipeline > 1) {
    lines.push(
      "local batch",
      "function init(args)",
      `  batch = string.rep(wrk.format(), ${pipeline})`,
      "end",
      "function request()",
      "  return batch",
      "end",
    );
  }
  lines.push(
    "function done(summary, latency, requests)",
    "  local e = summary.errors",
    '  io.write(string.format("WRK_JSON {\\"requests\\":%d,\\"duration_us\\":%d,\\"bytes\\":%d,\\"connect\\":%d,\\"read\\":%d,\\"write\\":%d,\\"status\\":%d,\\"timeout\\":%d,\\"p50_us\\":%d,\\"p99_us\\":%d,\\"mean_us\\":%f}\\n",',
    "    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,",
    "    latency:percentile(50), latency:percentile(99), latency.mean))",
    "end",
  );
  return `${lines.join("\n")}\n`;
}

export interface Target {
  name: string;
  pair: PairName;
  side: "reference" | "ours";
  label: string;
  url: string;
  /** The process serving it (ours or the reference), whose CPU is measured. */
  pid: number;
  headers: Record<string, string>;
  /** A file of api-keys used in turn, one per request. */
  keyFile?: string;
  /** A second process doing part of the work (nginx in front of the offload server), whose CPU is recorded too. */
  alsoPid?: number;
  /** What `alsoPid` is, in the figures: `proxy` (nginx in front of ours) or `service` (ours, idle behind a cache). */
  alsoName?: "proxy" | "service";
  /** Requests per connection at a time for this target, over `--pipeline` (the proxy-cache pair's). */
  pipeline?: number;
}

export interface Run {
  rps: number;
  p50: number;
  p99: number;
  mean: number;
  requests: number;
  /** Responses outside 2xx/3xx, and socket errors. */
  unexpected: number;
  /** Share of one core used by the server's main thread, and by the whole process, over the run. */
  mainCpu: number;
  totalCpu: number;
  /** Server CPU (whole process) per response, in microseconds: the cost, whatever else shares the core. */
  cpuUsPerRequest: number;
  load: number;
  /** Share of one core used by `alsoPid` over the run (NaN without one). */
  alsoCpu: number;
}

export async function runWrk(target: Target, seconds: number, options: Options, work: string): Promise<Run> {
  const script = join(work, `${target.name}.lua`);
  await writeFile(script, wrkScript(target.headers, target.keyFile ?? null, target.pipeline ?? options.pipeline));
  const args = ["-t1", `-c${options.connections}`, `-d${seconds}s`, "--timeout", "10s", "-s", script, target.url];
  const command = options.pin ? "taskset" : "wrk";
  const argv = options.pin ? ["-c", WRK_CPU, "wrk", ...args] : args;

  const mainBefore = cpuSeconds(`/proc/${target.pid}/task/${target.pid}/stat`);
  const totalBefore = cpuSeconds(`/proc/${target.pid}/stat`);
  const alsoBefore = target.alsoPid ? cpuSeconds(`/proc/${target.alsoPid}/stat`) : NaN;
  const started = process.hrtime.bigint();
  const output = await new Promise<string>((done, fail) => {
    const child = spawn(command, argv, { stdio: ["ignore", "pipe", "pipe"] });
    let text = "";
    child.stdout.on("data", (chunk: Buffer) => (text += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (text += chunk.toString()));
    child.on("error", fail);
    child.on("exit", (code) => (code === 0 ? done(text) : fail(new Error(`wrk exited with ${code}:\n${text}`))));
  });
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  const mainCpu = (cpuSeconds(`/proc/${target.pid}/task/${target.pid}/stat`) - mainBefore) / wall;
  const totalCpu = (cpuSeconds(`/proc/${target.pid}/stat`) - totalBefore) / wall;
  const alsoCpu = target.alsoPid ? (cpuSeconds(`/proc/${target.alsoPid}/stat`) - alsoBefore) / wall : NaN;

  const line = /^WRK_JSON (.*)$/m.exec(output);
  if (!line) throw new Error(`wrk printed no figures:\n${output}`);
  const w = JSON.parse(line[1]) as Record<string, number>;
  return {
    rps: w.requests / (w.duration_us / 1e6),
    p50: w.p50_us / 1000,
    p99: w.p99_us / 1000,
    mean: w.mean_us / 1000,
    requests: w.requests,
    unexpected: w.status + w.connect + w.read + w.write + w.timeout,
    mainCpu,
    totalCpu,
    cpuUsPerRequest: (totalCpu * wall * 1e6) / Math.max(1, w.requests),
    load: loadavg()[0],
    alsoCpu,
  };
}

export interface Memory {
  idleBytes: number;
  peakBytes: number;
  samples: number;
  byPhase: Record<string, number>;
}

/**
 * VmRSS of the server every RSS_SAMPLE_MS, and its VmHWM after a reset (the exact peak, when
 * the kernel allows the reset); `phase(name)` attributes the following samples to a target.
 */
export function watchRss(pid: number): { phase(name: string): void; stop(): Memory } {
  const idleBytes = statusField(pid, "VmRSS") ?? 0;
  let hwmReset = false;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    hwmReset = true;
  } catch {
    // Not allowed here: the sampled peak stands alone.
  }
  let peak = idleBytes;
  let samples = 0;
  let current = "";
  const byPhase: Record<string, number> = {};
  const timer = setInterval(() => {
    samples++;
    const rss = statusField(pid, "VmRSS") ?? 0;
    peak = Math.max(peak, rss);
    if (current) byPhase[current] = Math.max(byPhase[current] ?? 0, rss);
  }, RSS_SAMPLE_MS);
  return {
    phase(name) {
      current = name;
    },
    stop() {
      clearInterval(timer);
      const hwm = hwmReset ? (statusField(pid, "VmHWM") ?? 0) : 0;
      return { idleBytes, peakBytes: Math.max(peak, hwm), samples, byPhase };
    },
  };
}
