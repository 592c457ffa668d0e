/**
 * The form of a password-protected share page (docs/share-passwords.md): a plain form
 * posting to a server action, so it works without JavaScript. Nothing of the post (title,
 * media) is shown before the password.
 */
import { unlockShareAction } from "@/lib/web/share-actions";

const MESSAGES = new Map<string, string>([
  ["wrong", "That password is not right."],
  ["limited", "Too many attempts; try again in a few minutes."],
  ["later", "Too many wrong passwords for this post; please try again later."],
]);

export function PasswordForm({ code, problem }: { code: string; problem: string | string[] | undefined }) {
  const message = typeof problem === "string" ? MESSAGES.get(problem) : undefined;
  return (
    <section className="mx-auto max-w-sm space-y-4 py-16">
      <h1 className="text-2xl font-bold tracking-tight">This post is password-protected</h1>
      <p className="text-zinc-600 dark:text-zinc-300">Enter the password its owner gave you.</p>
      <form action={unlockShareAction} className="space-y-3">
        <input type="hidden" name="code" value={code} />
        <label className="block text-sm font-medium" htmlFor="share-password">
          Password
        </label>
        <input
          id="share-password"
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
        <button type="submit" className="rounded-md bg-brand-600 px-4 py-2 font-medium text-white hover:bg-brand-700">
          Open
        </button>
      </form>
    </section>
  );
}
