/** The console's short links (docs/admin.md, docs/short-links.md): every user's links, and deleting one with an audit entry. */
import type { Position } from "@/lib/db/paging";
import { listAllLinks, removeLink } from "@/lib/links/links";
import { recordAudit, type Actor } from "@/lib/audit/log";

export const ADMIN_LINKS_PAGE = 100;

export function adminLinks(after?: Position) {
  return listAllLinks(ADMIN_LINKS_PAGE, after);
}

export async function adminDeleteLink(actor: Actor, code: string): Promise<void> {
  const link = await removeLink(code);
  await recordAudit(actor, "link.delete", { type: "link", id: link.code, label: link.code }, { url: link.url });
}
