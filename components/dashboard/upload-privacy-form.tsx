"use client";
/** The account's default privacy for web and share-sheet uploads (lib/users/upload-privacy.ts). */
import { useState } from "react";
import { setUploadPrivacyAction } from "@/lib/web/dashboard/actions";
import type { FirstAccount } from "@/lib/web/dashboard/settings";
import { PRIVACY_LABEL, PRIVACY_MEANING, privaciesFrom } from "./privacies";
import { input, label, muted } from "./ui";
import { useAction } from "./use-action";

export function UploadPrivacyForm({ initial }: { initial: FirstAccount["uploadPrivacy"] }) {
  const [value, setValue] = useState(initial.chosen ? initial.privacy : "default");
  const { act, pending, error } = useAction();
  const change = (next: string) => {
    setValue(next);
    act(
      () => setUploadPrivacyAction(next),
      () => {},
    );
  };
  return (
    <div className="space-y-1">
      <label htmlFor="upload-privacy" className={label}>
        New uploads from the dashboard and your phone&apos;s share sheet
      </label>
      <select id="upload-privacy" value={value} disabled={pending} onChange={(e) => change(e.target.value)} className={`${input} sm:w-80`}>
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
