/**
 * The web app manifest (docs/share-target.md): makes the dashboard installable and, once
 * installed, a target of the phone's share sheet (POST multipart to /share-target).
 */
import type { MetadataRoute } from "next";

export default function manifest(): MetadataRoute.Manifest {
  return {
    name: "Mediahost",
    short_name: "Mediahost",
    description: "Upload and share images, videos and files.",
    start_url: "/dashboard",
    scope: "/",
    display: "standalone",
    background_color: "#ffffff",
    theme_color: "#3552e3",
    icons: [
      { src: "/icons/icon-192.png", sizes: "192x192", type: "image/png", purpose: "any" },
      { src: "/icons/icon-512.png", sizes: "512x512", type: "image/png", purpose: "any" },
    ],
    // Next's Manifest type has no share_target yet; the Web Share Target spec defines it.
    ...({
      share_target: {
        action: "/share-target",
        method: "POST",
        enctype: "multipart/form-data",
        params: {
          title: "title",
          text: "text",
          url: "url",
          files: [{ name: "file", accept: ["image/*", "video/*", "audio/*", "text/*", "application/pdf", "*/*"] }],
        },
      },
    } as object),
  };
}
