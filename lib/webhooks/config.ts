/** Webhook settings from the environment (docs/webhooks.md, "Settings"). */
import { env } from "@/lib/config/env";

export interface WebhookSettings {
  /** Every address allowed (WEBHOOK_ALLOW_PRIVATE=1). */
  allowPrivate: boolean;
  /** Addresses and CIDR ranges allowed although private (the allow-list form). */
  allowList: readonly string[];
  attempts: number;
  retryBaseMs: number;
  disableAfter: number;
  timeoutMs: number;
  logKeep: number;
}

export function webhookSettings(): WebhookSettings {
  const e = env();
  const allow = (e.WEBHOOK_ALLOW_PRIVATE ?? "").trim();
  const all = /^(1|true|yes|on)$/i.test(allow);
  return {
    allowPrivate: all,
    allowList:
      all || !allow
        ? []
        : allow
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean),
    attempts: e.WEBHOOK_ATTEMPTS ?? 6,
    retryBaseMs: e.WEBHOOK_RETRY_BASE_MS ?? 30_000,
    disableAfter: e.WEBHOOK_DISABLE_AFTER ?? 10,
    timeoutMs: e.WEBHOOK_TIMEOUT_MS ?? 10_000,
    logKeep: e.WEBHOOK_LOG_KEEP ?? 50,
  };
}
