/** bench:serve's figures: each ratio judged over the rounds, the summary on stdout and its last line, one JSON object. */
import { type Figure, log, machine, median, mib, round, SATURATED_CPU } from "../support/run";
import { type Memory, type Run, SERVER_CPU, type Target, WRK_CPU } from "./load";
import { type Options, TARGETS } from "./options";

/** Ours over the reference run just before it, per round; a client-bound reference's round does not count. */
export interface Ratio {
  key: string;
  ours: string;
  reference: string;
  /**
   * `cpu`: the reference's CPU per request over ours (`cpu_us_per_request`), counted in every
   * round: for a pair whose reference one wrk thread cannot saturate on two cores (the
   * proxy-cache pair), what each side's work costs is what can be compared.
   */
  metric: "rps" | "p99" | "cpu";
  target: { min?: number; max?: number };
  /** A second reference doing the same work with no thread-pool round trip (FD_REFERENCE in file-range.ts). */
  alternate?: string;
  /**
   * False: recorded, not judged (issue 42 §1: the X-Accel pairs need a core each for wrk,
   * nginx and the service; their servers' CPU per request, `cpu_us_per_request`, stands beside).
   */
  judged?: false;
}

/** A target's runs: best and median, and per round. */
function targetFigures(t: Target, list: Run[]): Figure {
  const best = list.reduce((a, b) => (b.rps > a.rps ? b : a));
  return {
    side: t.side,
    rps_best: round(best.rps, 0),
    rps_median: round(median(list.map((x) => x.rps)), 0),
    p50_ms: round(best.p50),
    p99_ms: round(best.p99),
    rounds_rps: list.map((x) => round(x.rps, 0)),
    rounds_p99_ms: list.map((x) => round(x.p99)),
    main_cpu_pct: list.map((x) => round(x.mainCpu * 100, 0)),
    total_cpu_pct: list.map((x) => round(x.totalCpu * 100, 0)),
    cpu_us_per_request: list.map((x) => round(x.cpuUsPerRequest, 0)),
    loadavg_1m: list.map((x) => round(x.load)),
    ...(t.alsoPid ? { [`${t.alsoName ?? "proxy"}_cpu_pct`]: list.map((x) => round(x.alsoCpu * 100, 0)) } : {}),
    unexpected: list.reduce((n, x) => n + x.unexpected, 0),
    ...(t.side === "reference" ? { client_bound: list.map((x) => x.mainCpu < SATURATED_CPU) } : {}),
  };
}

/** Judges one ratio into `figures`; returns its summary line, whether it met its target and whether every round was client-bound. */
function judge(x: Ratio, runs: Map<string, Run[]>, figures: Record<string, Figure>): { line: string; met: boolean; bound: boolean } {
  const oursRuns = runs.get(x.ours) ?? [];
  const refRuns = runs.get(x.reference) ?? [];
  const altRuns = x.alternate ? (runs.get(x.alternate) ?? []) : [];
  const perRound = oursRuns.map((o, i) => {
    // FD_REFERENCE: a round counts when a reference saturated its main thread; the ratio is
    // taken against the stricter of the two references (more req/s, lower p99), so the
    // second reference can only make a target harder to meet, never easier.
    const refs = [refRuns[i], altRuns[i]].filter((r): r is Run => r !== undefined);
    const saturated = refs.some((r) => r.mainCpu >= SATURATED_CPU);
    const value =
      x.metric === "rps"
        ? o.rps / Math.max(...refs.map((r) => r.rps))
        : x.metric === "cpu"
          ? Math.min(...refs.map((r) => r.cpuUsPerRequest)) / o.cpuUsPerRequest
          : o.p99 / Math.min(...refs.map((r) => r.p99));
    return { value, counts: saturated || x.metric === "cpu", clean: o.unexpected === 0 && refs.every((r) => r.unexpected === 0) };
  });
  const counted = perRound.filter((p) => p.counts && p.clean).map((p) => p.value);
  const bound = perRound.every((p) => !p.counts);
  const higherIsBetter = x.target.min !== undefined;
  const best = counted.length ? (higherIsBetter ? Math.max(...counted) : Math.min(...counted)) : NaN;
  const med = median(counted);
  const met = counted.length > 0 && (higherIsBetter ? best >= x.target.min! : best <= x.target.max!);
  figures[x.key] = Number.isFinite(best) ? round(best, 3) : null;
  figures[`${x.key}_median`] = Number.isFinite(med) ? round(med, 3) : null;
  figures[`${x.key}_rounds`] = perRound.map((p) => round(p.value, 3));
  figures[`${x.key}_client_bound`] = bound;
  const want = higherIsBetter ? `>= ${x.target.min}` : `<= ${x.target.max}`;
  const line =
    `  ${x.key.padEnd(18)} best ${String(figures[x.key]).padEnd(6)} median ${String(figures[`${x.key}_median`]).padEnd(6)} (target ${want}: ${x.judged === false ? "recorded, not judged" : met ? "ok" : "MISSED"})` +
    ` rounds ${perRound.map((p) => `${round(p.value, 3)}${p.counts ? "" : " client-bound"}${p.clean ? "" : " unexpected-status"}`).join(", ")}`;
  return { line, met, bound };
}

export interface Measured {
  options: Options;
  database: string;
  loadBefore: number;
  loadAfter: number;
  /** The first figures of the JSON line: the inputs' sizes. */
  sizes: Record<string, Figure>;
  targets: Target[];
  runs: Map<string, Run[]>;
  ratios: Ratio[];
  memory: Memory;
  coldKeyRps: number;
}

/** Prints the summary, then the JSON line with every figure. */
export function report(m: Measured): void {
  const { options, targets, runs } = m;
  const figures: Record<string, Figure> = {
    bench: "serve",
    load_generator: "wrk",
    database: m.database,
    machine: { ...machine(), loadavg_1m_before: round(m.loadBefore), loadavg_1m_after: round(m.loadAfter) },
    pinned: options.pin ? { wrk_cpu: Number(WRK_CPU), server_cpu: Number(SERVER_CPU), main_thread_alone: options.splitPin } : false,
    connections: options.connections,
    wrk_threads: 1,
    duration_s: options.durationS,
    rounds: options.rounds,
    pipeline: options.pipeline,
    ...m.sizes,
  };
  for (const t of targets) figures[t.name] = targetFigures(t, runs.get(t.name) ?? []);

  const pass: Record<string, boolean> = {};
  const clientBound: Record<string, boolean> = {};
  const lines: string[] = [];
  for (const x of m.ratios.filter((r) => runs.has(r.ours))) {
    const { line, met, bound } = judge(x, runs, figures);
    clientBound[x.key] = bound;
    if (x.judged !== false) pass[x.key] = met;
    lines.push(line);
  }
  const peakRssMb = round(mib(m.memory.peakBytes), 1);
  pass.peak_rss_mb = peakRssMb <= TARGETS.peak_rss_mb.max;
  const anyBound = Object.values(clientBound).some(Boolean);
  Object.assign(figures, {
    peak_rss_mb: peakRssMb,
    idle_rss_mb: round(mib(m.memory.idleBytes), 1),
    peak_rss_mb_by_target: Object.fromEntries(Object.entries(m.memory.byPhase).map(([name, bytes]) => [name, round(mib(bytes), 1)])),
    post_cold_key_rps: round(m.coldKeyRps, 0),
    client_bound: anyBound,
    client_bound_by_target: clientBound,
    targets: Object.fromEntries(Object.entries(TARGETS).map(([k, v]) => [k, "min" in v ? `>= ${v.min}` : `<= ${v.max}`])),
    pass,
  });
  if (options.profileDir) log(`server CPU profile in ${options.profileDir}`);

  const host = machine();
  console.log(
    [
      "",
      `bench:serve (wrk) on ${host.cpus} x ${host.cpu_model}, Node ${host.node}, Linux ${host.kernel}; database ${m.database}`,
      `wrk 1 thread, ${options.connections} connections${options.pipeline > 1 ? `, ${options.pipeline} requests pipelined` : ""}, ${options.durationS} s per run, ${options.rounds} alternating rounds;` +
        ` ${options.pin ? `wrk on CPU ${WRK_CPU}, servers on CPU ${SERVER_CPU}` : "not pinned"}; 1-min load ${round(m.loadBefore)} before, ${round(m.loadAfter)} after`,
      "",
      ...targets.map((t) => {
        const f = figures[t.name] as Record<string, Figure>;
        return `  ${t.name.padEnd(12)} ${String(f.rps_best).padStart(7)} req/s best (median ${f.rps_median})  p99 ${f.p99_ms} ms  main CPU ${JSON.stringify(f.main_cpu_pct)} %${f.proxy_cpu_pct ? `  nginx CPU ${JSON.stringify(f.proxy_cpu_pct)} %` : ""}  ${t.label}`;
      }),
      "",
      ...lines,
      `  peak RSS           ${peakRssMb} MB (target <= ${TARGETS.peak_rss_mb.max}: ${pass.peak_rss_mb ? "ok" : "MISSED"})`,
      `  client_bound       ${anyBound}`,
    ].join("\n"),
  );
  console.log(JSON.stringify(figures));
}
