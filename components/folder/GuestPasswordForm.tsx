/**
 * The password form of a folder's guest upload page (docs/guest-uploads.md): a plain form
 * posting to a server action, so it works without JavaScript, as a share page's.
 */
import { unlockGuestUploadAction } from "@/lib/web/guest-actions";
import { primaryButtonClass } from "@/components/share/styles";

const MESSAGES = new Map<string, string>([
  ["wrong", "That password is not right."],
  ["limited", "Too many attempts; try again in a few minutes."],
  ["later", "Too many wrong passwords for this folder; please try again later."],
]);

export function GuestPasswordForm({ code, problem }: { code: string; problem: string | string[] | undefined }) {
  const message = typeof problem === "string" ? MESSAGES.get(problem) : undefined;
  return (
    <form action={unlockGuestUploadAction} className="space-y-3">
      <input type="hidden" name="code" value={code} />
      <label className="block text-sm font-medium" htmlFor="guest-password">
        Password
      </label>
      <input
        id="guest-password"
        name="password"
        type="password"
        required
        autoComplete="off"
        className="w-full rounded-md border border-zinc-300 bg-white px-3 py-2 dark:border-zinc-700 dark:bg-zinc-900"
      />
      {message ? (
        <p role="alert" className="text-sm text-red-600 dark:text-red-400">
          {message}
        </p>
      ) : null}
      <button type="submit" className={primaryButtonClass}>
        Open
      </button>
    </form>
  );
}
