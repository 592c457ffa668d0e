import { Engage } from "@/components/discover/Engage";
import type { PostJson } from "@/lib/web/share";
import { CopyButton } from "./CopyButton";
import { countOf } from "@/components/plural";
import { formatDate } from "./format";
import { ReportButton } from "./ReportButton";
import { buttonClass, primaryButtonClass } from "./styles";

/**
 * Title, description, author, date, counts and the copy/download buttons of a share page;
 * for a signed-in visitor also like, comments and report (Relay's rules, lib/web/social-actions.ts).
 */
export function PostDetails({ post, title, owner, signedIn }: { post: PostJson; title: string; owner: boolean; signedIn: boolean }) {
  const first = post.files[0];
  const engaging = signedIn && post.like_count !== null;
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div className="min-w-0 space-y-1">
          <h1 className="break-words text-2xl font-bold tracking-tight">{title}</h1>
          {post.description && <p className="whitespace-pre-line break-words text-zinc-700 dark:text-zinc-300">{post.description}</p>}
        </div>
        <div className="flex flex-wrap gap-2">
          <CopyButton value={post.url} label="Copy link" className={primaryButtonClass} />
          {first && <CopyButton value={first.url} label="Copy direct link" className={buttonClass} />}
          {first && (
            <a href={first.url} download={first.name} className={buttonClass}>
              Download
            </a>
          )}
        </div>
      </div>
      <div className="flex flex-wrap items-center justify-between gap-x-6 gap-y-3 border-t border-zinc-200 pt-4 text-sm dark:border-zinc-800">
        {post.author ? (
          <div className="flex items-center gap-3">
            <img
              src={post.author.avatar}
              alt=""
              width={40}
              height={40}
              className="h-10 w-10 rounded-full bg-zinc-200 object-cover dark:bg-zinc-800"
            />
            <div>
              <p className="font-medium">
                <a href={`/u/${encodeURIComponent(post.author.username)}`} rel="author" className="hover:underline">
                  {post.author.nickname}
                </a>
                {post.author.verified && (
                  <span className="ml-1 text-brand-600 dark:text-brand-400" title="Verified">
                    ✓<span className="sr-only"> verified</span>
                  </span>
                )}
              </p>
              <p className="text-zinc-500 dark:text-zinc-400">
                @{post.author.username} · <time dateTime={post.created_at}>{formatDate(post.created_at)}</time>
              </p>
            </div>
          </div>
        ) : (
          <p className="text-zinc-500 dark:text-zinc-400">
            <time dateTime={post.created_at}>{formatDate(post.created_at)}</time>
          </p>
        )}
        <ul className="flex gap-4 text-zinc-600 dark:text-zinc-400" aria-label="Statistics">
          <li>{countOf(post.view_count, "view", { compact: true })}</li>
          {/* Signed in, the like and comment buttons below carry these counts (and keep them current). */}
          {!engaging && post.like_count !== null && <li>{countOf(post.like_count, "like", { compact: true })}</li>}
          {!engaging && <li>{countOf(post.comment_count, "comment", { compact: true })}</li>}
        </ul>
      </div>
      {signedIn && (
        <div className="space-y-3" data-testid="engage">
          {engaging && post.like_count !== null && (
            <Engage code={post.code} liked={!!post.liked} likeCount={post.like_count} commentCount={post.comment_count} />
          )}
          {!owner && <ReportButton code={post.code} />}
        </div>
      )}
      {owner && (
        <p className="text-sm text-zinc-500 dark:text-zinc-400">
          You own this post ({post.privacy}
          {post.moderated ? ", under moderation: only you can see it" : ""}).{" "}
          <a href="/dashboard" className="font-medium text-brand-600 hover:underline dark:text-brand-400">
            Edit in the dashboard
          </a>
        </p>
      )}
    </div>
  );
}
