/** Handlers of the users area (lib/routes/table/users.ts): profiles, a user's posts, upload history. */
import { decodeCursor, pageReply } from "@/lib/http/cursor";
import type { RouteContext } from "@/lib/http/route";
import { listUserPosts } from "@/lib/posts/list";
import { domainListView, ownAccount, profile, usageHistoryView } from "@/lib/presenters/users";
import { listOfferedDomains } from "@/lib/domains/domains";
import { hasGalleryAccess } from "@/lib/types/principal";
import { HISTORY_WINDOW_DAYS, usageHistory } from "@/lib/usage/history";
import { getOwnAccount, getProfile } from "@/lib/users/profile";
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

/** GET /domains: the domains offered to the caller and its default (docs/domains.md). */
export async function handleListDomains({ principal }: RouteContext) {
  return domainListView(await listOfferedDomains(principal.user.id));
}
