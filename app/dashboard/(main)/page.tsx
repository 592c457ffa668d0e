import { Gallery } from "@/components/dashboard/gallery";
import { env } from "@/lib/config/env";

export const metadata = { title: "Gallery" };
// UPLOAD_FILES is read when the page is served, not when it is built.
export const dynamic = "force-dynamic";

export default function GalleryPage() {
  return <Gallery textAllowed={env().UPLOAD_FILES !== "media"} />;
}
