/**
 * What the guest upload page says about an upload's result (docs/guest-uploads.md): from the
 * plain form's `?sent=&failed=&error=` after its 303, or from the reply the enhanced form
 * read. The query is anyone's to write, so it carries counts and an error *type*, and only
 * the words listed here are shown (as lib/web/error-words.ts does for the dashboard).
 */
const ERROR_WORDS = new Map<string, string>(
  Object.entries({
    file_too_large: "A file is larger than this folder accepts.",
    quota_exceeded: "This folder cannot take more uploads right now.",
    unsupported_type: "This folder does not accept that type of file.",
    upload_failed: "None of the files could be uploaded.",
    invalid_request: "Choose at least one file to upload.",
    forbidden: "Enter the folder's password first.",
    not_found: "This folder no longer takes uploads.",
    rate_limited: "Too many uploads from your address; please wait a minute and try again.",
    moderated: "A file was refused.",
    unavailable: "The service is busy; please try again in a moment.",
  }),
);

const GENERIC = "The upload did not work; please try again.";

const files = (n: number) => (n === 1 ? "1 file" : `${n} files`);

export interface GuestResult {
  sent: number;
  failed: number;
  error: string | null;
}

/** The result line, or null when there is none; `ok` says whether anything arrived. */
export function guestResultWords(result: GuestResult | null): { text: string; ok: boolean } | null {
  if (!result) return null;
  const why = result.error ? (ERROR_WORDS.get(result.error) ?? GENERIC) : null;
  if (result.sent > 0) {
    const rest = result.failed > 0 ? ` ${files(result.failed)} could not be uploaded${why ? `: ${why}` : "."}` : "";
    return { text: `Thank you: ${files(result.sent)} uploaded.${rest}`, ok: true };
  }
  return { text: why ?? GENERIC, ok: false };
}

/** The page's query (`sent`, `failed`, `error`) as a result; null when it carries none. */
export function guestResultOf(query: Record<string, string | string[] | undefined>): GuestResult | null {
  const one = (name: string) => (typeof query[name] === "string" ? (query[name] as string) : null);
  const count = (name: string) => Math.max(0, Math.min(1000, Number.parseInt(one(name) ?? "0", 10) || 0));
  if (one("sent") === null && one("error") === null) return null;
  return { sent: count("sent"), failed: count("failed"), error: one("error") };
}
