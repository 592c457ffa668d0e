/** What the processes under test cost, read from /proc: RSS (and their ffmpeg children's), CPU by process, children and thread. */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { statusField } from "../support/server";

const RSS_SAMPLE_MS = 50;

/**
 * Flushes every dirty page to disk between measurements, so one phase's writeback (1 GiB
 * and more) is not billed to the next one.
 */
export function flushDisk(): void {
  spawnSync("sync", { stdio: "ignore" });
}

/** Direct and indirect children (ffmpeg, ffprobe) from /proc/<pid>/task/<tid>/children. */
function descendants(pid: number): number[] {
  const found: number[] = [];
  const visit = (p: number): void => {
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${p}/task`);
    } catch {
      return;
    }
    for (const tid of tasks) {
      let text = "";
      try {
        text = readFileSync(`/proc/${p}/task/${tid}/children`, "utf8");
      } catch {
        continue;
      }
      for (const c of text.split(/\s+/).filter(Boolean).map(Number)) {
        found.push(c);
        visit(c);
      }
    }
  };
  visit(pid);
  return found;
}

/** One child process of the server (ffprobe, ffmpeg) as the sampler saw it: seconds from the start of the window. */
export interface ChildSpan {
  tool: string;
  /** The output file or last argument, to tell the remux from the thumbnail. */
  target: string;
  from: number;
  to: number;
}

export interface RssReport {
  baselineBytes: number;
  /** Highest sampled VmRSS. */
  sampledPeakBytes: number;
  /** VmHWM after resetting it at the start (exact peak, no sampling gaps), when the kernel allows the reset. */
  hwmPeakBytes: number | null;
  /** Highest sampled sum of the children's RSS (ffmpeg runs in its own processes). */
  childrenPeakBytes: number;
  samples: number;
  /** When each child ran: shows where the upload's time goes (receive, probe, remux, thumbnail, the rest). */
  children: ChildSpan[];
}

function describeChild(pid: number): { tool: string; target: string } | null {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
    if (argv.length === 0) return null; // a zombie, or not exec'd yet
    const tool = argv[0].split("/").pop() ?? "?";
    const target = (argv[argv.length - 1] ?? "").split("/").pop() ?? "";
    return { tool, target };
  } catch {
    return null;
  }
}

/**
 * Samples VmRSS every RSS_SAMPLE_MS. Also resets the kernel's peak-RSS counter (writing 5 to
 * /proc/<pid>/clear_refs) so VmHWM at the end is the true peak of this window, which a
 * 50 ms sampler could miss.
 */
export function watchRss(pid: number): { stop(): RssReport } {
  const baselineBytes = statusField(pid, "VmRSS") ?? 0;
  let hwmReset = false;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    hwmReset = true;
  } catch {
    // Not allowed here (or an old kernel): the sampled peak stands alone.
  }
  let sampledPeakBytes = baselineBytes;
  let childrenPeakBytes = 0;
  let samples = 0;
  const started = performance.now();
  const spans = new Map<number, ChildSpan>();
  const timer = setInterval(() => {
    samples++;
    const now = (performance.now() - started) / 1000;
    sampledPeakBytes = Math.max(sampledPeakBytes, statusField(pid, "VmRSS") ?? 0);
    let kids = 0;
    for (const c of descendants(pid)) {
      kids += statusField(c, "VmRSS") ?? 0;
      const span = spans.get(c);
      if (span) {
        span.to = now;
        // Caught between fork and exec, a child still shows the server's command line.
        if (span.tool === "node") Object.assign(span, describeChild(c) ?? {});
      } else {
        const described = describeChild(c);
        if (described) spans.set(c, { ...described, from: now, to: now });
      }
    }
    childrenPeakBytes = Math.max(childrenPeakBytes, kids);
  }, RSS_SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      const hwm = hwmReset ? statusField(pid, "VmHWM") : null;
      const children = [...spans.values()].sort((a, b) => a.from - b.from);
      return { baselineBytes, sampledPeakBytes, hwmPeakBytes: hwm, childrenPeakBytes, samples, children };
    },
  };
}

export const peakOf = (r: RssReport): number => Math.max(r.sampledPeakBytes, r.hwmPeakBytes ?? 0);

export const growthOf = (r: RssReport): number => peakOf(r) - r.baselineBytes;

/** User + system CPU time of a process and all its threads so far, in ms (/proc/<pid>/stat). */
export function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8")
    .replace(/^.*\) /s, "")
    .split(" ");
  // After the command name: field 14 (utime) and 15 (stime) of stat(5) are indexes 11 and 12 here.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}
/** processCpuMs plus the CPU of the children it has reaped. */
export function treeCpuMs(pid: number): number {
  return processCpuMs(pid) + childrenCpuMs(pid);
}

/** CPU ms of the children a process has reaped (cutime, cstime: fields 16 and 17 of stat(5)). */
export function childrenCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8")
    .replace(/^.*\) /s, "")
    .split(" ");
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / CLOCK_TICKS;
}

export interface ThreadCpu {
  main: number;
  vips: number;
  other: number;
}

/**
 * CPU ms so far of a process's live threads, grouped: the main (JavaScript) thread, libvips'
 * workers, and the rest. Threads that exited are missing, so compare groups, not totals.
 */
export function threadCpuMs(pid: number): ThreadCpu {
  const sum: ThreadCpu = { main: 0, vips: 0, other: 0 };
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
      sum[tid === String(pid) ? "main" : name.startsWith("libvips") ? "vips" : "other"] += ms;
    } catch {
      // the thread ended between readdir and read
    }
  }
  return sum;
}

const CLOCK_TICKS = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;
