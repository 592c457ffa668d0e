import { Gallery } from "@/components/dashboard/gallery";

export const metadata = { title: "Gallery" };

export default function GalleryPage() {
  return <Gallery />;
}
