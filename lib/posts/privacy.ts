/** A post's privacy (interface.md, "States and transitions"): the one list of its values. */
export const PRIVACIES = ["public", "unlisted", "private"] as const;
export type Privacy = (typeof PRIVACIES)[number];
