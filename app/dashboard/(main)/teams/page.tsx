import { TeamsPanel } from "@/components/dashboard/teams-panel";
import { dashboardTeams } from "@/lib/web/dashboard/teams";
import { requireDashboardUser } from "@/lib/web/dashboard/user";

export const metadata = { title: "Teams" };

export default async function TeamsPage() {
  const viewer = await requireDashboardUser("/dashboard/teams");
  return <TeamsPanel teams={await dashboardTeams(viewer.id)} canCreate={viewer.plan === "ultra"} />;
}
