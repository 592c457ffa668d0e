import { WebhooksPanel } from "@/components/dashboard/webhooks-panel";
import { dashboardApps } from "@/lib/web/dashboard/apps";
import { requireDashboardUser } from "@/lib/web/dashboard/user";

export const metadata = { title: "Webhooks" };

export default async function WebhooksPage() {
  const viewer = await requireDashboardUser("/dashboard/webhooks");
  const apps = (await dashboardApps(viewer.id)).filter((a) => !a.revoked).map((a) => ({ id: a.id, name: a.name }));
  return <WebhooksPanel apps={apps} />;
}
