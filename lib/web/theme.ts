/** The pages' colour scheme from the user's saved theme; anything else follows the operating system. */
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
