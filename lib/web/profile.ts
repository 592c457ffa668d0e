/** A public profile page's data, from Relay's GET /users/{id} reads and builders (docs/profiles.md). */
import type { z } from "zod";
import { env } from "@/lib/config/env";
import { isDomainError } from "@/lib/errors";
import { likedAmong } from "@/lib/posts/read";
import { decodeCursor, encodeCursor } from "@/lib/http/cursor";
import { listUserPosts } from "@/lib/posts/list";
import { postView } from "@/lib/presenters/posts";
import type { Profile } from "@/lib/presenters/users";
import { profile } from "@/lib/presenters/users";
import { getProfile } from "@/lib/users/profile";
import type { PostJson } from "./share";

export type ProfileJson = z.infer<typeof Profile>;

export const PROFILE_PAGE_SIZE = 24;
/** The API's cursor name: a cursor from GET /users/{id}/posts works here and back. */
const POSTS_ENDPOINT = "listUserPosts";

export type ProfilePage =
  | { kind: "profile"; user: ProfileJson; self: boolean; posts: PostJson[]; nextCursor: string | null }
  | { kind: "suspended"; username: string }
  | { kind: "not_found" };

export const profileUrl = (username: string): string => `${env().PUBLIC_URL}/u/${encodeURIComponent(username)}`;

/** `ref` is a username (case-insensitive) or an id; a cursor that is not ours gives the first page. */
export async function loadProfilePage(viewerId: string | null, ref: string, cursor: string | undefined): Promise<ProfilePage> {
  try {
    const record = await getProfile(viewerId, ref);
    const filters = { user: record.user.id };
    let after;
    if (cursor) {
      try {
        after = decodeCursor(POSTS_ENDPOINT, cursor, filters);
      } catch (error) {
        if (!isDomainError(error)) throw error;
      }
    }
    const page = await listUserPosts(record.user.id, PROFILE_PAGE_SIZE, after);
    const self = viewerId === record.user.id;
    const liked = await likedAmong(
      viewerId,
      page.items.map((p) => p.id),
    );
    return {
      kind: "profile",
      user: profile(record),
      self,
      posts: page.items.map((p) => postView(p, { owner: self, liked: liked.has(p.id), surface: "relay", primaryOnly: true })),
      nextCursor: page.next ? encodeCursor(POSTS_ENDPOINT, page.next, filters) : null,
    };
  } catch (error) {
    if (!isDomainError(error)) throw error;
    if (error.type === "not_found") return { kind: "not_found" };
    if (error.type === "suspended") {
      const username = error.context?.username;
      return { kind: "suspended", username: typeof username === "string" ? username : ref };
    }
    throw error;
  }
}
