import Link from "next/link";
import { Flash, PageHeading, param, type SearchParams } from "@/components/admin/parts";
import { SettingsForm } from "@/components/admin/settings-form";
import { listSettings } from "@/lib/settings/change";
import { requireAdmin } from "@/lib/web/admin/guard";
import { saveSettingsAction } from "@/lib/web/admin/settings-actions";

export const metadata = { title: "Settings" };

export default async function AdminSettingsPage({ searchParams }: { searchParams: SearchParams }) {
  await requireAdmin();
  const params = await searchParams;
  return (
    <>
      <PageHeading title="Settings">
        Changes apply on every instance within a few seconds and are written to the{" "}
        <Link href="/admin/audit" className="underline">
          audit log
        </Link>
        . A setting the service&apos;s environment sets wins and is locked here (docs/configuration.md).
      </PageHeading>
      <Flash notice={param(params, "notice")} error={param(params, "error")} />
      <SettingsForm states={await listSettings()} action={saveSettingsAction} />
    </>
  );
}
