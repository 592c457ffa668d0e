/** A post's privacy (docs/uploads.md, "Privacy, teams, priority"): the one list of its values. */
export const PRIVACIES = ["public", "unlisted", "private"] as const;
export type Privacy = (typeof PRIVACIES)[number];
