/** The settings page's bundle entry (docs/dashboard-scripts.md): app/dashboard/(main)/settings/page.tsx renders the same props. */
import { SettingsPanel, type SettingsProps } from "@/components/dashboard/settings-panel";
import { hydrateIsland } from "./hydrate";

hydrateIsland<SettingsProps>("settings", (props) => <SettingsPanel {...props} />);
