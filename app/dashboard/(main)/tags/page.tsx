import { TagsPanel } from "@/components/dashboard/tags-panel";

export const metadata = { title: "Tags" };

export default function TagsPage() {
  return <TagsPanel />;
}
