/**
 * What a page may say for `?error=`: the query is anyone's to write (a phishing link), so pages show
 * only the words listed here (docs/web-auth.md, "Error messages in addresses").
 */

const GENERIC = "That did not work; please try again.";

/** The interface's error types people can meet in the dashboard, and a few of the pages' own. */
const WORDS = new Map<string, string>(
  Object.entries({
    invalid_request: "That request was not valid.",
    unauthorized: "Please sign in again.",
    forbidden: "Your account may not do that.",
    suspended: "This account is suspended.",
    moderated: "That post is moderated and cannot be changed.",
    plan_required: "That needs a Plus or Ultra plan.",
    quota_exceeded: "That would go over your weekly upload quota.",
    unsupported_type: "This server does not accept that type of file.",
    upload_failed: "None of the files could be uploaded.",
    not_found: "Not found: it may have been deleted already.",
    file_too_large: "That is larger than your plan allows.",
    rate_limited: "Too many attempts; please wait a little and try again.",
    unavailable: "The service is busy; please try again in a moment.",
    // The share target's own (app/share-target/route.ts).
    unreadable: "The shared content could not be read.",
    nothing_shared: "Nothing was shared.",
    text_not_accepted: "This server accepts images and videos only; shared text cannot become a paste.",
  }),
);

export function errorWords(code: string | undefined | null): string | null {
  if (!code) return null;
  return WORDS.get(code) ?? GENERIC;
}
