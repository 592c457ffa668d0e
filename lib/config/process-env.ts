/**
 * The one module that writes `process.env` (tests/config/env.test.ts holds every other to
 * that). Our own code reads its settings through env.ts; these variables are for libraries
 * that read only the environment, with no option or per-request hook to give them a value:
 *
 * - NODE_ENV: Next picks its React build and caching from it, as `next start` and
 *   `next dev` set it; it must be right before Next is loaded.
 * - NEXT_TELEMETRY_DISABLED: a self-hosted service phones nowhere unless the operator opts in.
 * - NEXTAUTH_URL: next-auth 4 takes its base URL (callback URLs, secure cookies) from this
 *   variable alone (next-auth/utils/detect-origin.js; a `url` option was asked for in
 *   nextauthjs/next-auth#1156 and never added); it is PUBLIC_URL unless the operator set it.
 * - PUBLIC_URL, once PORT=0 has a port: the Next bundles load their own copy of env.ts, and
 *   the environment is what both copies read.
 */
import { env, resetEnv } from "./env";

/** Before Next is loaded: its mode, and no telemetry unless the operator asked for it. */
export function prepareNextEnvironment(dev: boolean): void {
  Object.assign(process.env, { NODE_ENV: dev ? "development" : "production" });
  process.env.NEXT_TELEMETRY_DISABLED ||= "1";
}

/** PORT=0: the default PUBLIC_URL (http://localhost:PORT) once the port is known. */
export function settlePublicUrl(port: number): void {
  if (!env().publicUrlFromPort || env().PORT !== 0) return;
  process.env.PUBLIC_URL = `http://localhost:${port}`;
  resetEnv();
}

/** NEXTAUTH_URL from PUBLIC_URL, unless set; before next-auth handles its first request. */
export function provideNextAuthUrl(): void {
  process.env.NEXTAUTH_URL ||= env().PUBLIC_URL;
}
