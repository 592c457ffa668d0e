/**
 * The web pages' colour scheme from the user's saved theme (Relay's free-form theme JSON;
 * the dashboard writes `{"mode": "system" | "light" | "dark"}`). Anything else, or no
 * user, follows the operating system.
 */
export type ThemeMode = "system" | "light" | "dark";

export function themeMode(themeJson: string | null | undefined): ThemeMode {
  if (!themeJson) return "system";
  try {
    const mode = (JSON.parse(themeJson) as { mode?: unknown } | null)?.mode;
    return mode === "light" || mode === "dark" ? mode : "system";
  } catch {
    return "system";
  }
}
