/** Users: profiles, their posts, upload history (API and Relay). */
import { z } from "zod";
import { hasGalleryAccess } from "../../types/principal";
import { HISTORY_WINDOW_DAYS, usageHistory as readUsageHistory } from "../../usage/history";
import { defineRoute } from "../../http/route";
import { getOwnAccount, getProfile } from "../../users/profile";
import { idParam, pageQuery } from "../params";
import { OwnAccount, paged, Post, Profile } from "../../presenters/schemas";
import { ownAccount, profile } from "../../presenters/views";
import { handleUserPosts } from "../posts";
import { BOTH } from "./shared";

const getUser = defineRoute({
  id: "getUser",
  method: "GET",
  path: "/users/{id}",
  surfaces: BOTH,
  summary: "A user's profile; `@me` is the caller's own account",
  params: idParam,
  response: z.union([OwnAccount, Profile]),
  async handler({ params, principal }) {
    const me = principal.user;
    if (params.id === "@me" || params.id === me.id) {
      return ownAccount(await getOwnAccount(me.id), hasGalleryAccess(principal));
    }
    return profile(await getProfile(me.id, params.id));
  },
});

const userPosts = defineRoute({
  id: "listUserPosts",
  method: "GET",
  path: "/users/{id}/posts",
  surfaces: BOTH,
  summary: "A user's public posts, newest first",
  params: idParam,
  query: pageQuery,
  response: paged("posts", Post),
  handler: ({ principal, surface, params, query }) => handleUserPosts(principal, surface, params.id, query),
});

const usageHistory = defineRoute({
  id: "usageHistory",
  method: "GET",
  path: "/usage-history",
  surfaces: BOTH,
  summary: "Daily upload activity over the last 365 days",
  rateLimit: "usage_history",
  response: z.object({
    history: z.array(z.object({ day: z.string(), bytes: z.number().int(), upload_count: z.number().int() })),
    stats: z.object({
      total_bytes: z.number().int(),
      upload_count: z.number().int(),
      active_days: z.number().int(),
      current_streak: z.number().int(),
      biggest_day: z.object({ day: z.string(), bytes: z.number().int() }).nullable(),
      window_days: z.number().int(),
    }),
  }),
  async handler({ principal }) {
    const h = await readUsageHistory(principal.user.id);
    return {
      history: h.history.map((d) => ({ day: d.day, bytes: d.bytes, upload_count: d.uploadCount })),
      stats: {
        total_bytes: h.totalBytes,
        upload_count: h.uploadCount,
        active_days: h.activeDays,
        current_streak: h.currentStreak,
        biggest_day: h.biggestDay,
        window_days: HISTORY_WINDOW_DAYS,
      },
    };
  },
});

export const userRoutes = [getUser, userPosts, usageHistory];
