import type { PostJson } from "@/lib/web/share";
import type { ShareText } from "@/lib/web/share-text";
import { TextView } from "./TextView";
import { AdaptiveVideo } from "@/components/video/AdaptiveVideo";
import { countOf } from "@/components/plural";
import { formatBytes } from "./format";
import { SHARE_IMAGE_SIZES, shareImageSources } from "@/components/preview-image";

type FileJson = PostJson["files"][number];

/**
 * A `file` (docs/file-kinds.md): name, size, type and a download; audio gets a player and
 * an image the interface does not list its WebP rendition. Never rendered inline itself.
 */
function DownloadCard({ file, alt }: { file: FileJson; alt: string }) {
  const audio = file.mime_type.startsWith("audio/");
  return (
    <div className="space-y-4 p-6 text-center sm:p-8" data-kind="file">
      {file.thumbnail_url ? (
        <img src={file.thumbnail_url} alt={alt} className="mx-auto block h-auto max-h-[60vh] w-auto max-w-full" decoding="async" />
      ) : null}
      <div>
        <p className="break-all font-medium">{file.name}</p>
        <p className="text-sm text-zinc-500 dark:text-zinc-400">
          {file.mime_type} · {formatBytes(file.size)}
        </p>
      </div>
      {audio ? (
        // biome-ignore lint/a11y/useMediaCaption: user uploads carry no captions
        <audio controls preload="metadata" src={file.url} className="mx-auto w-full max-w-md" aria-label={alt} />
      ) : null}
      <a
        href={file.url}
        download={file.name}
        className="inline-block rounded-md bg-brand-600 px-4 py-2 text-sm font-medium text-white hover:bg-brand-700"
      >
        Download
      </a>
    </div>
  );
}

/**
 * An image's `alt` from the start of the text read from it (docs/ocr.md), used when the post
 * has no description; marked as automatic in the text and in `data-alt`.
 */
export const automaticAltText = (start: string): string => `Automatic description, text in the image: ${start}`;

/**
 * The image's box before a byte of it arrives: as wide as it will be (the column, its own
 * width, or what 80vh of height allows) at its own ratio. With `width: auto` alone the box is
 * empty until the image's header is in, and the text under it moves down then: a layout shift
 * of 0.08 over a slow network once the style sheet no longer held the first paint (issue 29).
 */
function imageBox(width: number, height: number): { width: string; aspectRatio: string } {
  return { width: `min(100%, ${width}px, calc(80vh * ${width} / ${height}))`, aspectRatio: `${width} / ${height}` };
}

/** One file, shown large: an image, an HTML5 video on the fast-start MP4, a text, or a download card. */
function FileView({
  file,
  alt,
  priority,
  text,
  autoAlt,
}: {
  file: FileJson;
  alt: string;
  priority: boolean;
  text?: ShareText;
  autoAlt?: string | null;
}) {
  const size = file.width && file.height ? { width: file.width, height: file.height } : {};
  if (file.kind === "text" && text)
    return <TextView text={text} url={file.url} size={file.size} id={`text-${file.name.replace(/[^A-Za-z0-9_-]/g, "_")}`} />;
  if (file.kind === "file" || file.kind === "text") return <DownloadCard file={file} alt={alt} />;
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
    const sources = shareImageSources(file);
    return (
      <a href={file.url} className="block" title="Open the full-size image">
        {/* Sized WebP renditions (docs/renditions.md); the original stays the link and og:image. */}
        <img
          src={sources.src}
          srcSet={sources.srcSet}
          sizes={sources.srcSet ? SHARE_IMAGE_SIZES : undefined}
          alt={autoAlt ? automaticAltText(autoAlt) : alt}
          data-alt={autoAlt ? "automatic" : undefined}
          {...size}
          loading={priority ? "eager" : "lazy"}
          fetchPriority={priority ? "high" : undefined}
          decoding={priority ? undefined : "async"}
          style={file.width && file.height ? imageBox(file.width, file.height) : undefined}
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
export function PostMedia({
  post,
  title,
  texts = [],
  autoAlts,
}: {
  post: PostJson;
  title: string;
  texts?: readonly ShareText[];
  autoAlts?: (string | null)[];
}) {
  const textOf = (name: string) => texts.find((t) => t.name === name);
  if (post.files.length === 1) {
    return (
      <div className="overflow-hidden rounded-xl bg-zinc-100 dark:bg-zinc-900">
        <FileView file={post.files[0]} alt={title} priority text={textOf(post.files[0].name)} autoAlt={autoAlts?.[0]} />
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
              text={textOf(file.name)}
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
