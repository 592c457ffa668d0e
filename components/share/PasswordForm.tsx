/**
 * A password-protected share page before its password (docs/share-passwords.md): nothing of
 * the post (title, media) is shown.
 */
import { unlockShareAction } from "@/lib/web/share-actions";
import { UnlockForm } from "./UnlockForm";

export function PasswordForm({ code, problem }: { code: string; problem: string | string[] | undefined }) {
  return (
    <section className="mx-auto max-w-sm space-y-4 py-16">
      <h1 className="text-2xl font-bold tracking-tight">This post is password-protected</h1>
      <p className="text-zinc-600 dark:text-zinc-300">Enter the password its owner gave you.</p>
      <UnlockForm action={unlockShareAction} id="share-password" code={code} subject="post" problem={problem} />
    </section>
  );
}
