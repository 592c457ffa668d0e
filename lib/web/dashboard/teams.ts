/** Teams for the dashboard; keys are shown once, like app keys. */
import { displayTitle } from "@/lib/presenters/title";
import { DomainError } from "@/lib/errors";
import { fileView } from "@/lib/presenters/posts";
import { teamGallery } from "@/lib/teams/gallery";
import { createTeam, deleteTeamKey, findTeam, listMembers, listTeamsOf, regenerateTeamKey, type TeamRecord } from "@/lib/teams/teams";

export interface TeamView {
  id: string;
  name: string;
  role: "owner" | "member";
  /** Subscription state: a lapsed team's key cannot upload. */
  status: "active" | "lapsed";
  keyHint: string | null;
  hasKey: boolean;
  createdAt: string;
  members: { userId: string; username: string; role: "owner" | "member"; joinedAt: string }[];
}

export interface IssuedTeamKey {
  teamId: string;
  key: string;
}

export async function dashboardTeams(userId: string): Promise<TeamView[]> {
  const memberships = await listTeamsOf(userId);
  return Promise.all(
    memberships.map(async ({ team, role, hasKey }) => ({
      id: team.id,
      name: team.name,
      role,
      status: team.status,
      keyHint: team.keyHint,
      hasKey,
      createdAt: team.createdAt.toISOString(),
      members: (await listMembers(team.id)).map((m) => ({
        userId: m.userId,
        username: m.username,
        role: m.role,
        joinedAt: m.createdAt.toISOString(),
      })),
    })),
  );
}

/** Members and strangers both get not_found for key operations. */
async function ownedTeam(userId: string, teamId: string): Promise<TeamRecord> {
  const team = await findTeam(teamId);
  if (!team || team.ownerId !== userId) throw new DomainError("not_found", "No such team of yours.");
  return team;
}

export async function createDashboardTeam(userId: string, name: string): Promise<IssuedTeamKey> {
  const trimmed = name.trim();
  const { team, key } = await createTeam({ ownerId: userId, name: trimmed === "" ? undefined : trimmed });
  return { teamId: team.id, key };
}

export async function regenerateDashboardTeamKey(userId: string, teamId: string): Promise<IssuedTeamKey> {
  await ownedTeam(userId, teamId);
  const { key } = await regenerateTeamKey(teamId);
  return { teamId, key };
}

export async function deleteDashboardTeamKey(userId: string, teamId: string): Promise<void> {
  await ownedTeam(userId, teamId);
  await deleteTeamKey(teamId);
}

export interface TeamGalleryView {
  name: string;
  status: "active" | "lapsed";
  posts: {
    code: string;
    title: string | null;
    displayTitle: string;
    createdAt: string;
    fileCount: number;
    preview: string | null;
    author: string | null;
  }[];
  hasMore: boolean;
}

/** The team's newest posts, with signed preview URLs (team posts are always private). */
export async function dashboardTeamGallery(userId: string, teamId: string, limit = 60): Promise<TeamGalleryView> {
  const { team, page } = await teamGallery(userId, teamId, limit);
  const now = Date.now();
  return {
    name: team.name,
    status: team.status,
    hasMore: page.hasMore,
    posts: page.items.map((post) => {
      const first = post.files[0];
      const file = first ? fileView(post, first, now) : null;
      return {
        code: post.code,
        title: post.title,
        // What the card shows: the title, or the file's name (lib/presenters/title.ts).
        displayTitle: displayTitle({ title: post.title, file_count: post.fileCount, files: post.files }),
        createdAt: post.createdAt.toISOString(),
        fileCount: post.fileCount,
        preview: file ? (file.thumbnail_url ?? (file.mime_type.startsWith("image/") ? file.url : null)) : null,
        author: post.user?.displayUsername ?? null,
      };
    }),
  };
}
