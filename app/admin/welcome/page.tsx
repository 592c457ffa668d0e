import Link from "next/link";
import { Flash, PageHeading, param, type SearchParams } from "@/components/admin/parts";
import { SettingsForm } from "@/components/admin/settings-form";
import { card, muted, primaryButton, secondaryButton } from "@/components/dashboard/ui";
import { listSettings } from "@/lib/settings/change";
import { requireAdmin } from "@/lib/web/admin/guard";
import { saveWelcomeAction } from "@/lib/web/admin/settings-actions";

export const metadata = { title: "Welcome" };

/** The first-run questions, right after /setup made the first administrator (docs/setup.md). */
export default async function AdminWelcomePage({ searchParams }: { searchParams: SearchParams }) {
  const viewer = await requireAdmin();
  const params = await searchParams;
  return (
    <>
      <PageHeading title={`Welcome, ${viewer.username}`}>
        Your instance is ready. Two questions, both changeable later in Settings; then set up your uploader.
      </PageHeading>
      <Flash notice={param(params, "notice")} error={param(params, "error")} />
      <SettingsForm
        states={await listSettings()}
        action={saveWelcomeAction}
        submitLabel="Save"
        only={["UPLOAD_FILES", "REGISTRATION", "DEFAULT_UPLOAD_PRIVACY"]}
      />
      <section className={`${card} space-y-3`} aria-labelledby="uploader-heading">
        <h2 id="uploader-heading" className="text-lg font-semibold">
          Upload from ShareX or Flameshot
        </h2>
        <p className={muted}>
          Create an app to get a key and a ready-made ShareX configuration (.sxcu), a Flameshot script, or settings for Chatterino and curl.
        </p>
        <div className="flex flex-wrap gap-2">
          <Link href="/dashboard/apps" className={primaryButton}>
            Set up ShareX / Flameshot
          </Link>
          <Link href="/dashboard" className={secondaryButton}>
            Upload from the browser
          </Link>
          <Link href="/admin/settings" className={secondaryButton}>
            All settings
          </Link>
        </div>
      </section>
    </>
  );
}
