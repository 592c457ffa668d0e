/** Reports (post, user, comment) and GET /analytics (being built). */
import type { z } from "zod";
import type { Principal } from "../auth/principal";
import { DomainError } from "../errors";
import type { analyticsQuery, reportBody } from "./params";

const notYet = (what: string): never => {
  throw new DomainError("internal", `${what} is not available yet.`, 501);
};

export type ReportTarget = { kind: "post"; code: string } | { kind: "user"; id: string } | { kind: "comment"; id: string };

export async function report(principal: Principal, target: ReportTarget, body: z.output<typeof reportBody>, ip: string): Promise<object> {
  return notYet(`report ${target.kind} ${principal.kind} ${body.reason ?? ""} ${ip}`);
}
export async function analytics(principal: Principal, query: z.output<typeof analyticsQuery>): Promise<object> {
  return notYet(`analytics ${principal.kind} ${query.range ?? ""}`);
}
