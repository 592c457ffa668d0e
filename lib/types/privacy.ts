/** A post's privacy (docs/uploads.md, "Privacy, teams, priority"): the one list of its values. */
export const PRIVACIES = ["public", "unlisted", "private"] as const;
export type Privacy = (typeof PRIVACIES)[number];
export const isPrivacy = (value: unknown): value is Privacy =>
  typeof value === "string" && (PRIVACIES as readonly string[]).includes(value);
export const PRIVACY_CHOICES = `${PRIVACIES.slice(0, -1).join(", ")} or ${PRIVACIES[PRIVACIES.length - 1]}`;
