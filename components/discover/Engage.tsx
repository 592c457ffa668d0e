"use client";

import { useId } from "react";
import { nounFor } from "@/components/plural";
import { formatCount } from "@/components/share/format";
import type { CommentJson } from "@/lib/web/social-actions";
import { type Engagement, useEngagement } from "./use-engagement";

export interface EngageProps {
  code: string;
  liked: boolean;
  likeCount: number;
  commentCount: number;
}

const pill =
  "inline-flex items-center gap-1.5 rounded-full border border-zinc-300 px-3 py-1 text-sm hover:bg-zinc-100 disabled:opacity-60 dark:border-zinc-700 dark:hover:bg-zinc-800";

/** Like and comment controls of a discover card, for signed-in viewers. */
export function Engage(props: EngageProps) {
  const engagement = useEngagement(props);
  const panelId = useId();
  return (
    <div className="space-y-3">
      <div className="flex gap-2">
        <LikeButton engagement={engagement} />
        <CommentsButton engagement={engagement} panelId={panelId} />
      </div>
      {engagement.error && (
        <p role="alert" className="text-sm text-red-600 dark:text-red-400">
          {engagement.error}
        </p>
      )}
      {engagement.open && <CommentsPanel engagement={engagement} panelId={panelId} />}
    </div>
  );
}

function LikeButton({ engagement: { liked, likes, pending, open, toggleLike } }: { engagement: Engagement }) {
  return (
    <button type="button" onClick={toggleLike} aria-pressed={liked} className={pill} disabled={pending && !open}>
      <svg
        aria-hidden="true"
        viewBox="0 0 24 24"
        className={`h-4 w-4 ${liked ? "fill-red-500 stroke-red-500" : "fill-none stroke-current"}`}
        strokeWidth={2}
      >
        <path
          d="M12 21s-7.5-4.6-9.5-9.2C1.2 8.6 3.3 5 6.8 5c2 0 3.4 1.1 4.2 2.4h2C13.8 6.1 15.2 5 17.2 5c3.5 0 5.6 3.6 4.3 6.8C19.5 16.4 12 21 12 21z"
          strokeLinejoin="round"
        />
      </svg>
      {formatCount(likes)}
      <span className="sr-only">{` ${nounFor(likes, "like")}${liked ? ", liked by you: unlike" : ": like"}`}</span>
    </button>
  );
}

/** Opens and closes the comments panel (`panelId`); shows the count. */
function CommentsButton({ engagement: { open, commentCount, toggleComments }, panelId }: { engagement: Engagement; panelId: string }) {
  return (
    <button type="button" onClick={toggleComments} aria-expanded={open} aria-controls={panelId} className={pill}>
      <svg aria-hidden="true" viewBox="0 0 24 24" className="h-4 w-4 fill-none stroke-current" strokeWidth={2}>
        <path d="M4 5h16v11H9l-5 4V5z" strokeLinejoin="round" />
      </svg>
      {formatCount(commentCount)}
      <span className="sr-only">{` ${nounFor(commentCount, "comment")}`}</span>
    </button>
  );
}

/** The comments (loaded on first opening) and the form that adds one. */
function CommentsPanel({ engagement: { comments, pending, submitComment }, panelId }: { engagement: Engagement; panelId: string }) {
  return (
    <div id={panelId} className="space-y-3 border-t border-zinc-200 pt-3 dark:border-zinc-800">
      <CommentList comments={comments} />
      <form onSubmit={submitComment} className="flex gap-2">
        <label htmlFor={`${panelId}-body`} className="sr-only">
          Write a comment
        </label>
        <input
          id={`${panelId}-body`}
          name="body"
          required
          maxLength={200}
          placeholder="Write a comment"
          className="min-w-0 flex-1 rounded-md border border-zinc-300 bg-white px-2 py-1 text-sm dark:border-zinc-700 dark:bg-zinc-900"
        />
        <button
          type="submit"
          disabled={pending}
          className="rounded-md bg-brand-600 px-3 py-1 text-sm font-medium text-white hover:bg-brand-700 disabled:opacity-60"
        >
          Post
        </button>
      </form>
    </div>
  );
}

function CommentList({ comments }: { comments: CommentJson[] | null }) {
  if (comments === null) return <p className="text-sm text-zinc-500 dark:text-zinc-400">Loading comments…</p>;
  if (comments.length === 0) return <p className="text-sm text-zinc-500 dark:text-zinc-400">No comments yet.</p>;
  return (
    <ul className="space-y-2">
      {comments.map((comment) => (
        <li key={comment.id} className="text-sm">
          <span className="font-medium">{comment.author.nickname}</span>{" "}
          <span className="break-words text-zinc-700 dark:text-zinc-300">{comment.body}</span>
        </li>
      ))}
    </ul>
  );
}
