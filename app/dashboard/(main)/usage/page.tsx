import { UsagePanel } from "@/components/dashboard/usage-panel";

export const metadata = { title: "Usage" };

export default function UsagePage() {
  return <UsagePanel />;
}
