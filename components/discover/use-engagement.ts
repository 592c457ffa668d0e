"use client";
/** The state behind a post's like and comment controls, and the server actions that change it. */
import { useState, useTransition, type FormEvent } from "react";
import { addComment, type CommentJson, loadComments, setLike } from "@/lib/web/social-actions";

export interface Engagement {
  liked: boolean;
  likes: number;
  /** Null until the panel is first opened and they have loaded. */
  comments: CommentJson[] | null;
  commentCount: number;
  /** Whether the comments panel is open. */
  open: boolean;
  error: string | null;
  pending: boolean;
  toggleLike: () => void;
  toggleComments: () => void;
  submitComment: (event: FormEvent<HTMLFormElement>) => void;
}

export function useEngagement({
  code,
  liked: initialLiked,
  likeCount: initialLikes,
  commentCount: initialComments,
}: {
  code: string;
  liked: boolean;
  likeCount: number;
  commentCount: number;
}): Engagement {
  const [liked, setLiked] = useState(initialLiked);
  const [likes, setLikes] = useState(initialLikes);
  const [comments, setComments] = useState<CommentJson[] | null>(null);
  const [commentCount, setCommentCount] = useState(initialComments);
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();

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

  function submitComment(event: FormEvent<HTMLFormElement>) {
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

  return { liked, likes, comments, commentCount, open, error, pending, toggleLike, toggleComments, submitComment };
}
