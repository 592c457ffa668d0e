import { AppsPanel } from "@/components/dashboard/apps-panel";
import { MAX_APPS_PER_USER } from "@/lib/apps/apps";
import { dashboardApps } from "@/lib/web/dashboard/apps";
import { requireDashboardUser } from "@/lib/web/dashboard/user";

export const metadata = { title: "Apps & keys" };

export default async function AppsPage() {
  const viewer = await requireDashboardUser("/dashboard/apps");
  return <AppsPanel initialApps={await dashboardApps(viewer.id)} maxApps={MAX_APPS_PER_USER} />;
}
