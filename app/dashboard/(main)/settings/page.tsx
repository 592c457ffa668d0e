import { Island } from "@/components/dashboard/island";
import { SettingsPanel, type SettingsProps } from "@/components/dashboard/settings-panel";
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
  const props: SettingsProps = { first: viewer.suspended ? undefined : await firstAccount(viewer.id) };
  // On a full load the server sends our own bundle instead of Next's runtime (docs/dashboard-scripts.md).
  return (
    <Island name="settings" props={props}>
      <SettingsPanel {...props} />
    </Island>
  );
}
