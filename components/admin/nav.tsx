import { SectionNav, type SectionLink } from "@/components/section-nav";

const ITEMS: readonly SectionLink[] = [
  { href: "/admin", label: "Overview" },
  { href: "/admin/users", label: "Users" },
  { href: "/admin/reports", label: "Reports" },
  { href: "/admin/moderation", label: "Moderation" },
  { href: "/admin/invites", label: "Invites" },
  { href: "/admin/links", label: "Short links" },
  { href: "/admin/settings", label: "Settings" },
  { href: "/admin/audit", label: "Audit log" },
];

/** The console's sections (docs/admin.md), laid out as the dashboard's. */
export function AdminNav() {
  return <SectionNav label="Admin" items={ITEMS} />;
}
