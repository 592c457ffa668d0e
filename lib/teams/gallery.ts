/** The team gallery: the newest posts of a team, for its members only. */
import { db } from "@/lib/db/client";
import { keysetPage, newestFirst, type Page } from "@/lib/db/paging";
import { DomainError } from "@/lib/errors";
import { notExpiredWhere } from "@/lib/posts/expiry-rules";
import { postInclude, type PostRecord } from "@/lib/posts/read";
import { findTeam, type TeamRecord } from "./teams";

export async function teamGallery(userId: string, teamId: string, limit: number): Promise<{ team: TeamRecord; page: Page<PostRecord> }> {
  const [team, member] = await Promise.all([
    findTeam(teamId),
    db().teamMember.findUnique({ where: { teamId_userId: { teamId, userId } }, select: { userId: true } }),
  ]);
  // A stranger learns nothing about the team, not even that it exists.
  if (!team || !member) throw new DomainError("not_found", "No such team of yours.");
  const page = await keysetPage(
    limit,
    (take) =>
      db().post.findMany({ where: { teamId, AND: [notExpiredWhere()] }, include: postInclude, orderBy: newestFirst("createdAt"), take }),
    (p) => ({ t: p.createdAt.getTime(), id: p.id }),
  );
  return { team, page };
}
