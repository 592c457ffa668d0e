"use client";

import { useState, useTransition } from "react";
import { countOf } from "@/components/plural";
import { buttonClass, primaryButtonClass } from "@/components/share/styles";
import { setFollow } from "@/lib/web/social-actions";

export interface FollowButtonProps {
  username: string;
  following: boolean;
  followerCount: number;
}

/** Follow / unfollow with the follower count beside it; the server's answer is the truth. */
export function FollowButton({ username, following: initialFollowing, followerCount: initialCount }: FollowButtonProps) {
  const [following, setFollowing] = useState(initialFollowing);
  const [count, setCount] = useState(initialCount);
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();

  function toggle() {
    setError(null);
    startTransition(async () => {
      const result = await setFollow(username, !following);
      if (result.ok) {
        setFollowing(result.value.following);
        setCount(result.value.followerCount);
      } else {
        setError(result.error);
      }
    });
  }

  return (
    <div className="flex flex-wrap items-center gap-3">
      <button
        type="button"
        onClick={toggle}
        disabled={pending}
        aria-pressed={following}
        className={following ? buttonClass : primaryButtonClass}
      >
        {following ? "Following" : "Follow"}
      </button>
      <span className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="follower-count">
        {countOf(count, "follower")}
      </span>
      {error && (
        <p role="alert" className="w-full text-sm text-red-600 dark:text-red-400">
          {error}
        </p>
      )}
    </div>
  );
}
