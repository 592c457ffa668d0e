/** bench:upload's figures: the summary on stdout and its last line, one JSON object. */
import { loadavg } from "node:os";
import { type Figure, log, machine, round } from "../support/run";
import { PROFILE_DIR, UPLOAD_RATIO_VS_SYNCED_TARGET } from "./options";

export interface Section {
  figures: Record<string, Figure>;
  lines: string[];
  pass: Record<string, boolean>;
}

export function report(sections: Section[], loadBefore: number): void {
  const m = machine();
  const loadAfter = loadavg()[0];
  if (PROFILE_DIR) log(`server CPU profiles in ${PROFILE_DIR}`);
  const pass = Object.assign({}, ...sections.map((s) => s.pass)) as Record<string, boolean>;
  const figures = {
    machine: { ...m, loadavg_1m_before: round(loadBefore), loadavg_1m_after: round(loadAfter) },
    ...(Object.assign({}, ...sections.map((s) => s.figures)) as Record<string, Figure>),
    targets: {
      rss_growth_mb: "< 150",
      upload_ratio_vs_synced: `>= ${UPLOAD_RATIO_VS_SYNCED_TARGET}`,
      image_ratio: ">= 0.7",
      default_503: "0",
      default_rss_growth_mb: "< 150",
    },
    pass,
  };
  console.log(
    [
      "",
      `bench:upload on ${m.cpus} x ${m.cpu_model}, ${m.memory_gb} GB RAM, Node ${m.node}, Linux ${m.kernel}; 1-min load ${round(loadBefore)} before, ${round(loadAfter)} after`,
      ...sections.flatMap((s) => ["", ...s.lines]),
    ].join("\n"),
  );
  console.log(JSON.stringify(figures));
}
