/**
 * The one module that writes `process.env`, for libraries that read only the environment:
 * NODE_ENV (Next), NEXT_TELEMETRY_DISABLED, NEXTAUTH_URL (next-auth 4 takes its base URL from
 * it alone, nextauthjs/next-auth#1156), and PUBLIC_URL once PORT=0 has a port (the Next
 * bundles load their own copy of env.ts).
 */
import { env, resetEnv } from "./env";

export function prepareNextEnvironment(dev: boolean): void {
  Object.assign(process.env, { NODE_ENV: dev ? "development" : "production" });
  process.env.NEXT_TELEMETRY_DISABLED ||= "1";
}

export function settlePublicUrl(port: number): void {
  if (!env().publicUrlFromPort || env().PORT !== 0) return;
  process.env.PUBLIC_URL = `http://localhost:${port}`;
  resetEnv();
}

export function provideNextAuthUrl(): void {
  process.env.NEXTAUTH_URL ||= env().PUBLIC_URL;
}
