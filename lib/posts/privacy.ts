/** A post's privacy: the one list lives in lib/types/privacy.ts (the settings' rule reads it too, from below this layer). */
export { isPrivacy, PRIVACIES, PRIVACY_CHOICES, type Privacy } from "@/lib/types/privacy";
