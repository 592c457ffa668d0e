/** What each plan allows: our defaults where the spec is silent, each overridable (docs/plans.md). */
export type Plan = "free" | "plus" | "ultra";
export const PLANS: readonly Plan[] = ["free", "plus", "ultra"];

export interface PlanLimits {
  uploadFileBytes: number;
  uploadRequestBytes: number;
  weeklyQuotaBytes: number;
  /** Largest file on POST /convert (fixed by the spec). */
  convertFileBytes: number;
  priorityMinutes: number;
}

const MB = 1024 * 1024;
const GB = 1024 * MB;

export const PLAN_DEFAULTS: Readonly<Record<Plan | "team", Readonly<PlanLimits>>> = {
  free: {
    uploadFileBytes: 100 * MB,
    uploadRequestBytes: 500 * MB,
    weeklyQuotaBytes: 5 * GB,
    convertFileBytes: 50 * MB,
    priorityMinutes: 60,
  },
  plus: {
    uploadFileBytes: 2 * GB,
    uploadRequestBytes: 10 * GB,
    weeklyQuotaBytes: 100 * GB,
    convertFileBytes: 20 * GB,
    priorityMinutes: 600,
  },
  ultra: {
    uploadFileBytes: 20 * GB,
    uploadRequestBytes: 50 * GB,
    weeklyQuotaBytes: 1024 * GB,
    convertFileBytes: 50 * GB,
    priorityMinutes: 3000,
  },
  team: {
    uploadFileBytes: 20 * GB,
    uploadRequestBytes: 50 * GB,
    weeklyQuotaBytes: 1024 * GB,
    convertFileBytes: 50 * GB,
    priorityMinutes: 3000,
  },
};

/** "10GB", "500 MB", "1048576" → bytes. */
export function parseBytes(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb|tb)?\s*$/i.exec(text);
  if (!m) return null;
  const unit = { b: 1, kb: 1024, mb: MB, gb: GB, tb: 1024 * GB }[(m[2] ?? "b").toLowerCase() as "b"];
  return Math.round(Number(m[1]) * unit);
}

export const PLAN_SETTING_FIELDS: Readonly<Record<keyof PlanLimits, string>> = {
  uploadFileBytes: "UPLOAD_FILE_MAX",
  uploadRequestBytes: "UPLOAD_REQUEST_MAX",
  weeklyQuotaBytes: "WEEKLY_QUOTA",
  convertFileBytes: "CONVERT_FILE_MAX",
  priorityMinutes: "PRIORITY_MINUTES",
};

/** Every PLAN_<PLAN>_<FIELD> variable (team included), for the start-up check and the docs. */
export const PLAN_SETTING_NAMES: readonly string[] = [...PLANS, "team"].flatMap((plan) =>
  Object.values(PLAN_SETTING_FIELDS).map((field) => `PLAN_${plan.toUpperCase()}_${field}`),
);

export function planLimits(plan: Plan | "team", source: Readonly<Record<string, string | undefined>> = process.env): PlanLimits {
  const limits = { ...PLAN_DEFAULTS[plan] };
  for (const field of Object.keys(PLAN_SETTING_FIELDS) as (keyof PlanLimits)[]) {
    const raw = source[`PLAN_${plan.toUpperCase()}_${PLAN_SETTING_FIELDS[field]}`];
    if (!raw) continue;
    const value = field === "priorityMinutes" ? Number(raw) : parseBytes(raw);
    if (value === null || !Number.isFinite(value) || value < 0) {
      const name = `PLAN_${plan.toUpperCase()}_${PLAN_SETTING_FIELDS[field]}`;
      const expected = field === "priorityMinutes" ? "a number of minutes, 0 or more" : "a byte count such as 4GB, 512MB or 1048576";
      throw new Error(`Invalid setting ${name}: must be ${expected}, got ${JSON.stringify(raw)}`);
    }
    limits[field] = value;
  }
  return limits;
}

export const isPlan = (v: unknown): v is Plan => typeof v === "string" && (PLANS as readonly string[]).includes(v);
