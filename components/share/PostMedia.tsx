import type { PostJson } from "@/lib/web/share";
import { AdaptiveVideo } from "@/components/video/AdaptiveVideo";
import { countOf } from "../plural";
import { formatBytes } from "./format";

type FileJson = PostJson["files"][number];

/**
 * An image's `alt` from the start of the text read from it (docs/ocr.md), used when the post
 * has no description; marked as automatic in the text and in `data-alt`.
 */
export const automaticAltText = (start: string): string => `Automatic description, text in the image: ${start}`;

/** One file, shown large: an image, an HTML5 video on the fast-start MP4, or a download card. */
function FileView({ file, alt, priority, autoAlt }: { file: FileJson; alt: string; priority: boolean; autoAlt?: string | null }) {
  const size = file.width && file.height ? { width: file.width, height: file.height } : {};
  if (file.mime_type.startsWith("video/")) {
    return (
      // Priority delivery plays the adaptive stream once it is ready; the MP4 otherwise.
      <AdaptiveVideo
        src={file.url}
        streamUrl={file.stream_url}
        type={file.mime_type}
        controls
        playsInline
        preload="metadata"
        poster={file.thumbnail_url ?? undefined}
        {...size}
        className="mx-auto block h-auto max-h-[80vh] w-full bg-black"
        aria-label={alt}
      >
        <a href={file.url}>Download the video</a>
      </AdaptiveVideo>
    );
  }
  if (file.mime_type.startsWith("image/")) {
    return (
      <a href={file.url} className="block" title="Open the full-size image">
        {/* Direct CDN files, already sized and optimised at upload: no image pipeline. */}
        <img
          src={file.url}
          alt={autoAlt ? automaticAltText(autoAlt) : alt}
          data-alt={autoAlt ? "automatic" : undefined}
          {...size}
          loading={priority ? "eager" : "lazy"}
          fetchPriority={priority ? "high" : undefined}
          decoding="async"
          className="mx-auto block h-auto max-h-[80vh] w-auto max-w-full"
        />
      </a>
    );
  }
  return (
    <div className="p-8 text-center">
      <p className="font-medium">{file.name}</p>
      <p className="text-sm text-zinc-500 dark:text-zinc-400">
        {file.mime_type} · {formatBytes(file.size)}
      </p>
    </div>
  );
}

/** The post's files in order; an album numbers them and gives each its direct link. */
export function PostMedia({ post, title, autoAlts }: { post: PostJson; title: string; autoAlts?: (string | null)[] }) {
  if (post.files.length === 1) {
    return (
      <div className="overflow-hidden rounded-xl bg-zinc-100 dark:bg-zinc-900">
        <FileView file={post.files[0]} alt={title} priority autoAlt={autoAlts?.[0]} />
      </div>
    );
  }
  return (
    <ol className="space-y-6" aria-label={countOf(post.files.length, "file")}>
      {post.files.map((file, index) => (
        <li key={file.name} id={`file-${index + 1}`} className="space-y-2">
          <div className="overflow-hidden rounded-xl bg-zinc-100 dark:bg-zinc-900">
            <FileView
              file={file}
              alt={`${title}, file ${index + 1} of ${post.files.length}`}
              priority={index === 0}
              autoAlt={autoAlts?.[index]}
            />
          </div>
          <p className="flex flex-wrap items-center justify-between gap-2 text-sm text-zinc-600 dark:text-zinc-400">
            <span>
              {index + 1} / {post.files.length} · {formatBytes(file.size)}
            </span>
            <a href={file.url} className="font-medium text-brand-600 hover:underline dark:text-brand-400">
              Direct link<span className="sr-only"> to file {index + 1}</span>
            </a>
          </p>
        </li>
      ))}
    </ol>
  );
}
