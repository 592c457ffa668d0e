import { SettingsPanel } from "@/components/dashboard/settings-panel";
import { firstAccount } from "@/lib/web/dashboard/settings";
import { requireDashboardUser } from "@/lib/web/dashboard/user";

export const metadata = { title: "Settings" };

/**
 * The account is read here and rendered into the HTML (issue 29); the client's react-query
 * takes it as its initial data. A suspended account's read is left to the client, which
 * shows the API's refusal as before (issue 27).
 */
export default async function SettingsPage() {
  const viewer = await requireDashboardUser("/dashboard/settings");
  return <SettingsPanel first={viewer.suspended ? undefined : await firstAccount(viewer.id)} />;
}
