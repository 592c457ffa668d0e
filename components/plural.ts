/**
 * Counted nouns in the web UI: "1 view", "2 views", "0 comments", "1.2K likes". Every
 * component that shows a count next to a noun goes through here, so no card says
 * "1 views" (issue 20; tests/web/plural.test.ts also checks that no component spells a
 * plural after a count itself). The UI is English: one is singular, every other number
 * (0, 2, 1.5, 1.2K) plural, as Intl.PluralRules("en") has it.
 */
import { formatCount } from "./share/format";

const PLURALS = {
  view: "views",
  like: "likes",
  comment: "comments",
  file: "files",
  day: "days",
  upload: "uploads",
  post: "posts",
  minute: "minutes",
  second: "seconds",
  follower: "followers",
  visit: "visits",
  // "1 following", "2 following": counted as on profiles, the word does not change.
  following: "following",
} as const;

export type CountedNoun = keyof typeof PLURALS;

const rules = new Intl.PluralRules("en");

/** The noun alone, singular or plural for `count` (null counts as 0). */
export function nounFor(count: number | null, noun: CountedNoun): string {
  return rules.select(count ?? 0) === "one" ? noun : PLURALS[noun];
}

/** "1 view", "12 views"; with `compact`, "1.2K views". */
export function countOf(count: number | null, noun: CountedNoun, options: { compact?: boolean } = {}): string {
  const n = count ?? 0;
  return `${options.compact ? formatCount(n) : String(n)} ${nounFor(n, noun)}`;
}
