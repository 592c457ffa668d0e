import { SectionNav, type SectionLink } from "@/components/section-nav";

const ITEMS: readonly SectionLink[] = [
  { href: "/dashboard", label: "Gallery" },
  { href: "/dashboard/folders", label: "Folders" },
  { href: "/dashboard/tags", label: "Tags" },
  { href: "/dashboard/links", label: "Links" },
  { href: "/dashboard/apps", label: "Apps & keys" },
  { href: "/dashboard/teams", label: "Teams" },
  { href: "/dashboard/usage", label: "Usage" },
  { href: "/dashboard/webhooks", label: "Webhooks" },
  { href: "/dashboard/settings", label: "Settings" },
];

/** The dashboard's sections. */
export function DashboardNav() {
  return <SectionNav label="Dashboard" items={ITEMS} />;
}
