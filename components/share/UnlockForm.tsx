/**
 * The password form of a protected share page or guest upload page: a plain form posting
 * to a server action, so it works without JavaScript (docs/share-passwords.md).
 */
import { primaryButtonClass } from "./styles";

const messages = (subject: string) =>
  new Map<string, string>([
    ["wrong", "That password is not right."],
    ["limited", "Too many attempts; try again in a few minutes."],
    ["later", `Too many wrong passwords for this ${subject}; please try again later.`],
  ]);

export interface UnlockFormProps {
  action: (form: FormData) => Promise<void>;
  /** The input's id (one per page kind). */
  id: string;
  code: string;
  /** "post" or "folder": named in the message of too many tries. */
  subject: string;
  problem: string | string[] | undefined;
}

export function UnlockForm({ action, id, code, subject, problem }: UnlockFormProps) {
  const message = typeof problem === "string" ? messages(subject).get(problem) : undefined;
  return (
    <form action={action} className="space-y-3">
      <input type="hidden" name="code" value={code} />
      <label className="block text-sm font-medium" htmlFor={id}>
        Password
      </label>
      <input
        id={id}
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
