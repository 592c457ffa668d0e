"use client";

import { useId, useState, useTransition, type FormEvent } from "react";
import { addComment, loadComments, setLike, type CommentJson } from "@/lib/web/social-actions";
import { nounFor } from "@/components/plural";
import { formatCount } from "@/components/share/format";

export interface EngageProps {
  code: string;
  liked: boolean;
  likeCount: number;
  commentCount: number;
}

const pill =
  "inline-flex items-center gap-1.5 rounded-full border border-zinc-300 px-3 py-1 text-sm hover:bg-zinc-100 disabled:opacity-60 dark:border-zinc-700 dark:hover:bg-zinc-800";

/** Like and comment controls of a discover card, for signed-in viewers. */
export function Engage({ code, liked: initialLiked, likeCount: initialLikes, commentCount: initialComments }: EngageProps) {
  const [liked, setLiked] = useState(initialLiked);
  const [likes, setLikes] = useState(initialLikes);
  const [comments, setComments] = useState<CommentJson[] | null>(null);
  const [commentCount, setCommentCount] = useState(initialComments);
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  const panelId = useId();

  function toggleLike() {
    const next = !liked;
    // Optimistic: the count moves at once and is corrected by the server's answer.
    setLiked(next);
    setLikes((n) => n + (next ? 1 : -1));
    startTransition(async () => {
      const result = await setLike(code, next);
      if (result.ok) {
        setLiked(result.value.liked);
        setLikes(result.value.likeCount);
      } else {
        setLiked(!next);
        setLikes((n) => n + (next ? -1 : 1));
        setError(result.error);
      }
    });
  }

  function toggleComments() {
    const next = !open;
    setOpen(next);
    if (next && comments === null) {
      startTransition(async () => {
        const result = await loadComments(code);
        if (result.ok) setComments(result.value);
        else setError(result.error);
      });
    }
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const body = String(new FormData(form).get("body") ?? "");
    startTransition(async () => {
      const result = await addComment(code, body);
      if (result.ok) {
        setComments((list) => [...(list ?? []), result.value]);
        setCommentCount((n) => n + 1);
        setError(null);
        form.reset();
      } else {
        setError(result.error);
      }
    });
  }

  return (
    <div className="space-y-3">
      <div className="flex gap-2">
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
        <button type="button" onClick={toggleComments} aria-expanded={open} aria-controls={panelId} className={pill}>
          <svg aria-hidden="true" viewBox="0 0 24 24" className="h-4 w-4 fill-none stroke-current" strokeWidth={2}>
            <path d="M4 5h16v11H9l-5 4V5z" strokeLinejoin="round" />
          </svg>
          {formatCount(commentCount)}
          <span className="sr-only">{` ${nounFor(commentCount, "comment")}`}</span>
        </button>
      </div>
      {error && (
        <p role="alert" className="text-sm text-red-600 dark:text-red-400">
          {error}
        </p>
      )}
      {open && (
        <div id={panelId} className="space-y-3 border-t border-zinc-200 pt-3 dark:border-zinc-800">
          {comments === null ? (
            <p className="text-sm text-zinc-500">Loading comments…</p>
          ) : comments.length === 0 ? (
            <p className="text-sm text-zinc-500">No comments yet.</p>
          ) : (
            <ul className="space-y-2">
              {comments.map((comment) => (
                <li key={comment.id} className="text-sm">
                  <span className="font-medium">{comment.author.nickname}</span>{" "}
                  <span className="break-words text-zinc-700 dark:text-zinc-300">{comment.body}</span>
                </li>
              ))}
            </ul>
          )}
          <form onSubmit={submit} className="flex gap-2">
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
      )}
    </div>
  );
}
