/** Shared class names of the dashboard's controls, so every button and field looks alike. */
export const button =
  "inline-flex items-center justify-center gap-2 rounded-md px-3 py-2 text-sm font-medium transition-colors disabled:cursor-not-allowed disabled:opacity-50";
export const primaryButton = `${button} bg-brand-600 text-white hover:bg-brand-700`;
export const secondaryButton = `${button} border border-zinc-300 bg-white text-zinc-900 hover:bg-zinc-100 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:hover:bg-zinc-800`;
export const dangerButton = `${button} bg-red-600 text-white hover:bg-red-700`;
export const input =
  "w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm text-zinc-900 placeholder:text-zinc-400 disabled:cursor-not-allowed disabled:bg-zinc-100 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:disabled:bg-zinc-800";
export const card = "rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900/60";
export const label = "block text-sm font-medium text-zinc-700 dark:text-zinc-300";
export const muted = "text-sm text-zinc-600 dark:text-zinc-400";

/** One byte formatter for every page (components/share/format.ts). */
export { formatBytes } from "@/components/share/format";

export function formatDate(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}
