import { Gallery, type GalleryProps } from "@/components/dashboard/gallery";
import { Island } from "@/components/dashboard/island";
import { env } from "@/lib/config/env";
import { firstGalleryPage, galleryListingOf } from "@/lib/web/dashboard/gallery";
import { requireDashboardUser } from "@/lib/web/dashboard/user";
import { uploadPrivacyOf } from "@/lib/users/upload-privacy";

export const metadata = { title: "Gallery" };
// UPLOAD_FILES and the upload privacy are read when the page is served, not when it is built.
export const dynamic = "force-dynamic";

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/**
 * The first page of posts is read here and rendered into the HTML (the first tiles and the
 * largest image need no script and no API round trip, issue 29); the client's react-query
 * takes it as its initial data and loads the next pages through the API.
 */
export default async function GalleryPage({ searchParams }: { searchParams: SearchParams }) {
  const viewer = await requireDashboardUser("/dashboard");
  const listing = galleryListingOf(await searchParams);
  // The API refuses a suspended account every read (403 suspended, issue 27): its page is left
  // to the client's fetch, which shows that refusal as before.
  const first = listing && !viewer.suspended ? await firstGalleryPage(viewer.id, listing) : undefined;
  const { privacy } = await uploadPrivacyOf(viewer.id);
  const props: GalleryProps = { accepted: env().UPLOAD_FILES, uploadPrivacy: privacy, first };
  // On a full load the server sends our own bundle instead of Next's runtime (docs/dashboard-scripts.md).
  return (
    <Island name="gallery" props={props}>
      <Gallery {...props} />
    </Island>
  );
}
