/** The share pair: a fixed reply of the same bytes as our page (bare reference) against /p/{code} as Discordbot. */
import { log } from "../support/run";
import type { Server } from "../support/server";
import type { TargetOf } from "./bare";
import type { Target } from "./load";
import { TARGETS } from "./options";
import { type Probe, probe } from "./ours";
import type { Ratio } from "./report";

const CRAWLER_UA = "Discordbot/2.0";

/** Our page as the crawler gets it (what the reference sends); a status other than 200 is measured anyway, and marked. */
export async function sharePage(server: Server, sharePath: string): Promise<Probe> {
  const share = await probe(server, sharePath, { "user-agent": CRAWLER_UA });
  if (share.status !== 200) log(`the share page answers ${share.status}: measured anyway, and marked`);
  return share;
}

export function shareTargets({ ours, reference }: { ours: TargetOf; reference: TargetOf }, sharePath: string): Target[] {
  return [
    reference("bare_share", "share", "bare node:http, fixed reply of the same bytes as the page", "/share", { "user-agent": CRAWLER_UA }),
    ours("share_robot", "share", "GET /p/{code}, Discordbot", sharePath, { "user-agent": CRAWLER_UA }),
  ];
}

export const SHARE_RATIOS: Ratio[] = [
  { key: "share_robot_ratio", ours: "share_robot", reference: "bare_share", metric: "rps", target: TARGETS.share_robot_ratio },
];
