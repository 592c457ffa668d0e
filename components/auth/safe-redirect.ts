/** Only local paths are followed after sign-in: `?callbackUrl=https://evil.example` is not. */
export function safeRedirect(target: string | null | undefined, fallback = "/dashboard"): string {
  if (!target?.startsWith("/") || target.startsWith("//") || target.startsWith("/\\")) return fallback;
  return target;
}
