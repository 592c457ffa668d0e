import { SettingsPanel } from "@/components/dashboard/settings-panel";

export const metadata = { title: "Settings" };

export default function SettingsPage() {
  return <SettingsPanel />;
}
