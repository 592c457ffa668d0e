"use client";
/**
 * The account's default privacy for web and share-sheet uploads (lib/users/upload-privacy.ts),
 * through PUT /relay/users/@me/upload-privacy: a fetch, so it works on the page with or without
 * Next's runtime (docs/dashboard-scripts.md).
 */
import { useState } from "react";
import type { UploadPrivacyReply } from "@/lib/presenters/users";
import type { FirstAccount } from "@/lib/web/dashboard/settings";
import { api, type Reply } from "./api";
import { PRIVACY_LABEL, PRIVACY_MEANING, privaciesFrom } from "./privacies";
import { input, label, muted } from "./ui";

export function UploadPrivacyForm({ initial }: { initial: FirstAccount["uploadPrivacy"] }) {
  const [value, setValue] = useState(initial.chosen ? initial.privacy : "default");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const change = async (next: string) => {
    setValue(next);
    setError(null);
    setPending(true);
    try {
      await api<Reply<typeof UploadPrivacyReply>>("/relay/users/@me/upload-privacy", {
        method: "PUT",
        body: JSON.stringify({ privacy: next === "default" ? null : next }),
      });
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setPending(false);
    }
  };
  return (
    <div className="space-y-1">
      <label htmlFor="upload-privacy" className={label}>
        New uploads from the dashboard and your phone&apos;s share sheet
      </label>
      <select
        id="upload-privacy"
        value={value}
        disabled={pending}
        onChange={(e) => void change(e.target.value)}
        className={`${input} sm:w-80`}
      >
        <option value="default">Server default ({PRIVACY_LABEL[initial.operatorDefault]})</option>
        {privaciesFrom("unlisted").map((privacy) => (
          <option key={privacy} value={privacy}>
            {PRIVACY_LABEL[privacy]}: {PRIVACY_MEANING[privacy]}
          </option>
        ))}
      </select>
      <p className={muted}>Uploaders with a key (ShareX, scripts) choose for themselves; without a choice they upload private.</p>
      {error && (
        <p role="alert" className="text-sm text-red-600">
          {error}
        </p>
      )}
    </div>
  );
}
