import { UploadsChart } from "@/components/admin/uploads-chart";
import { PageHeading, Stat } from "@/components/admin/parts";
import { formatBytes } from "@/components/dashboard/ui";
import { overview } from "@/lib/admin/overview";
import { requireAdmin } from "@/lib/web/admin/guard";

export const metadata = { title: "Overview" };

export default async function AdminOverviewPage() {
  await requireAdmin();
  const o = await overview();
  const n = (value: number) => value.toLocaleString("en");
  return (
    <>
      <PageHeading title="Overview">The instance at a glance.</PageHeading>
      <dl className="grid grid-cols-2 gap-3 lg:grid-cols-4">
        <Stat label="Users" value={n(o.users)} />
        <Stat label="Suspended users" value={n(o.suspendedUsers)} />
        <Stat label="Posts" value={n(o.posts)} />
        <Stat label="Files" value={n(o.files)} />
        <Stat label="Bytes stored" value={formatBytes(o.bytesStored)} />
        <Stat label="Media jobs waiting" value={n(o.jobsWaiting)} />
        <Stat label="Media jobs running" value={n(o.jobsRunning)} />
        <Stat label="Open reports" value={n(o.openReports)} />
        <Stat label="Posts awaiting moderation" value={n(o.moderatedPosts)} />
      </dl>
      <UploadsChart days={o.uploadsPerDay} />
    </>
  );
}
