/** The privacies as the dashboard shows them: every list of them comes from PRIVACIES (lib/posts/privacy.ts). */
import { PRIVACIES, type Privacy } from "@/lib/posts/privacy";

export { PRIVACIES };

export const PRIVACY_LABEL: Record<Privacy, string> = { public: "Public", unlisted: "Unlisted", private: "Private" };

/** Who sees a post of each privacy, for the editor's longer options. */
export const PRIVACY_MEANING: Record<Privacy, string> = {
  public: "listed on discover and your profile",
  unlisted: "anyone with the link",
  private: "only you",
};

/** The privacies with `first` first (a toolbar's default), then the others in PRIVACIES' order. */
export function privaciesFrom(first: Privacy): Privacy[] {
  return [first, ...PRIVACIES.filter((privacy) => privacy !== first)];
}
