/**
 * Every setting checked before the server starts (docs/configuration.md, "How settings are
 * read"): a bad value stops the start naming its variable, instead of surfacing at the first
 * request that reads it, or never.
 */
import { parseEnv, type Environment } from "@/lib/config/env";
import { convertInMemoryMaxBytes, convertTimeoutMs } from "@/lib/convert/config";
import { databaseConfig } from "@/lib/db/config";
import { offloadOf } from "@/lib/delivery/offload";
import { parseMediaConfig } from "@/lib/media/config";
import { hlsPreset, hlsThreads } from "@/lib/media/hls";
import { moderatorFromEnv } from "@/lib/moderation/moderator";
import { PLAN_SETTING_NAMES, PLANS, planLimits } from "@/lib/plans";
import { blobConfigFromEnv, s3ConfigFromEnv } from "@/lib/storage/config";
import { parseGateOptions } from "@/lib/uploads/receive-gate";

interface SubsystemSettings {
  module: string;
  variables: readonly string[];
  check(source: Environment): unknown;
}

export const SUBSYSTEM_SETTINGS: readonly SubsystemSettings[] = [
  {
    module: "lib/media/config.ts",
    variables: ["MEDIA_CONCURRENCY", "MEDIA_QUEUE_MAX", "MEDIA_TIMEOUT_SECONDS", "FFMPEG_SOURCE"],
    check: parseMediaConfig,
  },
  { module: "lib/media/hls.ts", variables: ["HLS_THREADS", "HLS_X264_PRESET"], check: (source) => [hlsThreads(source), hlsPreset(source)] },
  {
    module: "lib/convert/config.ts",
    variables: ["CONVERT_TIMEOUT_SECONDS", "CONVERT_IN_MEMORY_MAX_BYTES"],
    check: (source) => [convertTimeoutMs(source), convertInMemoryMaxBytes(source)],
  },
  {
    module: "lib/plans.ts",
    variables: PLAN_SETTING_NAMES,
    check: (source) => [...PLANS, "team" as const].map((plan) => planLimits(plan, source)),
  },
  {
    module: "lib/moderation/moderator.ts",
    variables: ["MODERATION_WORDS", "MODERATION_WORDS_FILE", "MODERATION_HASHES_FILE"],
    check: moderatorFromEnv,
  },
  {
    module: "lib/uploads/receive-gate.ts",
    variables: ["UPLOAD_RECEIVE_SLOTS", "UPLOAD_RECEIVE_STALL_MS", "UPLOAD_RECEIVE_HOLD_MS"],
    check: parseGateOptions,
  },
  {
    module: "lib/storage/config.ts",
    variables: ["BLOB_READ_WRITE_TOKEN", "BLOB_ACCESS", "BLOB_PREFIX"],
    check(source) {
      const kind = parseEnv(source).STORAGE;
      if (kind === "s3") return s3ConfigFromEnv(source);
      if (kind === "blob") return blobConfigFromEnv(source);
      if (kind !== "disk") throw new Error(`Invalid setting STORAGE: must be disk, s3 or blob, got ${JSON.stringify(kind)}`);
      return null;
    },
  },
  { module: "lib/db/config.ts", variables: [], check: databaseConfig },
  // DELIVERY_OFFLOAD must fit STORAGE (both in env.ts).
  { module: "lib/delivery/offload.ts", variables: [], check: (source) => offloadOf(parseEnv(source)) },
];

/** Parses every setting of `source`; throws the first problem, naming its variable. */
export function checkSettings(source: Environment = process.env): void {
  try {
    parseEnv(source);
  } catch (error) {
    throw new Error(`Invalid setting ${describeEnvError(error)}`);
  }
  for (const subsystem of SUBSYSTEM_SETTINGS) subsystem.check(source);
}

function describeEnvError(error: unknown): string {
  const issues = (error as { issues?: { path: PropertyKey[]; message: string }[] }).issues;
  if (!issues?.length) return error instanceof Error ? error.message : String(error);
  return issues.map((issue) => `${issue.path.map(String).join(".")}: ${issue.message}`).join("; ");
}
