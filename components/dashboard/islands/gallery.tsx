/** The gallery's bundle entry (docs/dashboard-scripts.md): app/dashboard/(main)/page.tsx renders the same props. */
import { Gallery, type GalleryProps } from "@/components/dashboard/gallery";
import { hydrateIsland } from "./hydrate";

hydrateIsland<GalleryProps>("gallery", (props) => <Gallery {...props} />);
