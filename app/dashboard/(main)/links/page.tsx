import { LinksPanel } from "@/components/dashboard/links-panel";

export const metadata = { title: "Short links" };

export default function LinksPage() {
  return <LinksPanel />;
}
