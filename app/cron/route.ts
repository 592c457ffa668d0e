/**
 * GET /cron: the background work of `npm start`, once, for platforms that run no process
 * between requests (docs/deploy.md, "4. Serverless (Vercel)"). Authenticated as serverless schedulers
 * do it: `Authorization: Bearer <CRON_SECRET>` (Vercel Cron sends exactly that). Runs the
 * recovery sweep (expired posts and resumable uploads, leftovers, jobs of dead workers) and
 * then due jobs until none is left or the budget is spent. Without CRON_SECRET the endpoint
 * does not exist (404).
 */
import { timingSafeEqual } from "node:crypto";
import { env } from "@/lib/config/env";
import { errorBody } from "@/lib/http/respond";
import { runDueJobs } from "@/lib/jobs";
import { describeRecovery, recoverLeftovers } from "@/lib/recovery/recover";
import { registerWebhookJobs } from "@/lib/webhooks/delivery-job";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";
/** Vercel's limit for one invocation (seconds); jobs stop being started well before it. */
export const maxDuration = 300;
const JOB_BUDGET_MS = 200_000;

const NO_STORE = { "cache-control": "no-store" };

function authorized(header: string | null, secret: string): boolean {
  const given = Buffer.from(header ?? "");
  const wanted = Buffer.from(`Bearer ${secret}`);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

export async function GET(request: Request): Promise<Response> {
  const secret = env().CRON_SECRET;
  if (!secret) return Response.json(errorBody("not_found", "No such endpoint."), { status: 404, headers: NO_STORE });
  if (!authorized(request.headers.get("authorization"), secret)) {
    return Response.json(errorBody("unauthorized", "Send Authorization: Bearer <CRON_SECRET>."), {
      status: 401,
      headers: { ...NO_STORE, "www-authenticate": "Bearer" },
    });
  }
  // Job kinds of the features, before the recovery and the queue look their handlers up.
  registerWebhookJobs();
  const recovery = await recoverLeftovers();
  const jobs = await runDueJobs(JOB_BUDGET_MS);
  return Response.json(
    {
      status: "ok",
      recovery: describeRecovery(recovery) ?? "nothing to recover",
      expired_posts: recovery.expired.removed,
      jobs_run: jobs.ran,
    },
    { headers: NO_STORE },
  );
}
