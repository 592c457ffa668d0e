"use server";
/**
 * Server actions of the profile page: follow and unfollow as the signed-in user, through
 * the same domain functions as Relay's POST/DELETE /users/{id}/follow, so the rules
 * (blocks either way, suspended users, yourself) and the notification are the same.
 * Each action checks the web session itself; Next refuses actions from other origins.
 */
import { isDomainError } from "@/lib/errors";
import { followUser, unfollowUser } from "@/lib/social/follows";
import { getViewer } from "@/lib/web/viewer";

export type FollowResult = { ok: true; following: boolean; followerCount: number } | { ok: false; error: string };

export async function setFollow(username: string, follow: boolean): Promise<FollowResult> {
  const viewer = await getViewer();
  if (!viewer) return { ok: false, error: "Sign in to follow." };
  if (viewer.suspended) return { ok: false, error: "This account is suspended." };
  try {
    const state = follow ? await followUser(viewer.id, String(username)) : await unfollowUser(viewer.id, String(username));
    return { ok: true, ...state };
  } catch (error) {
    if (isDomainError(error)) return { ok: false, error: error.message };
    throw error;
  }
}
