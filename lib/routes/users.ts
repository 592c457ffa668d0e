/** Handlers of the users area (lib/routes/table/users.ts): profiles, a user's posts, upload history. */
import { decodeCursor, pageReply } from "../http/cursor";
import type { RouteContext } from "../http/route";
import { listUserPosts } from "../posts/list";
import { ownAccount, profile, usageHistoryView } from "../presenters/users";
import { hasGalleryAccess } from "../types/principal";
import { HISTORY_WINDOW_DAYS, usageHistory } from "../usage/history";
import { getOwnAccount, getProfile } from "../users/profile";
import type { idParam, pageQuery } from "./params";
import { postViewer, viewerOf } from "./posts";

export async function handleGetUser({ params, principal }: RouteContext<{ params: typeof idParam }>) {
  const me = principal.user;
  if (params.id === "@me" || params.id === me.id) {
    return ownAccount(await getOwnAccount(me.id), hasGalleryAccess(principal));
  }
  return profile(await getProfile(me.id, params.id));
}

export async function handleListUserPosts({
  principal,
  surface,
  params,
  query,
}: RouteContext<{ params: typeof idParam; query: typeof pageQuery }>) {
  const ref = params.id === "@me" ? principal.user.id : params.id;
  const filters = { user: ref };
  const after = query.cursor ? decodeCursor("listUserPosts", query.cursor, filters) : undefined;
  const page = await listUserPosts(ref, query.limit, after);
  const viewer = viewerOf(principal, surface);
  const view = await postViewer(page.items, viewer, surface, page.items[0]?.userId === viewer.userId);
  return pageReply("posts", "listUserPosts", filters, page, view);
}

export async function handleUsageHistory({ principal }: RouteContext) {
  return usageHistoryView(await usageHistory(principal.user.id), HISTORY_WINDOW_DAYS);
}
