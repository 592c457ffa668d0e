"use client";
/**
 * The dashboard's paste editor (docs/pastes.md): a text becomes a text post through the
 * same POST /api/upload as every file (named after its language, so the upload's language
 * rule reads it back), then the title is set with PATCH. Shown only when UPLOAD_FILES lets
 * text in.
 */
import { useState, type FormEvent } from "react";
import { LANGUAGES, extensionFor } from "@/lib/text/languages";
import { Field, fieldIds } from "@/components/field";
import { api, errorText, type Post, type Privacy } from "./api";
import { PRIVACIES } from "./privacies";
import { PrivacySelect } from "./privacy-select";
import { input, muted, primaryButton } from "./ui";

const EXPIRY: ReadonlyArray<[string, number | null]> = [
  ["Never", null],
  ["1 hour", 3600],
  ["1 day", 86_400],
  ["1 week", 7 * 86_400],
];

/** "Detect": the upload's own rule names the language from the text (a shebang, JSON, HTML...), as for any uploaded file. */
const DETECT = "auto";

export function PasteEditor({ onCreated, privacy: initialPrivacy = "unlisted" }: { onCreated: () => void; privacy?: Privacy }) {
  const ids = fieldIds("paste", ["text", "language", "title", "privacy", "expiry"]);
  const [text, setText] = useState("");
  const [language, setLanguage] = useState(DETECT);
  const [title, setTitle] = useState("");
  const [privacy, setPrivacy] = useState<Privacy>(initialPrivacy);
  const [expiry, setExpiry] = useState("0");
  const [state, setState] = useState<{ busy: boolean; error?: string; url?: string }>({ busy: false });

  async function submit(event: FormEvent) {
    event.preventDefault();
    setState({ busy: true });
    const form = new FormData();
    form.append("file", new File([text], `paste.${language === DETECT ? "txt" : extensionFor(language)}`, { type: "text/plain" }));
    const seconds = EXPIRY[Number(expiry)]?.[1] ?? null;
    const headers: Record<string, string> = { "post-privacy": privacy };
    if (seconds) headers["expires-at"] = new Date(Date.now() + seconds * 1000).toISOString();
    const response = await fetch("/api/upload", { method: "POST", body: form, headers, credentials: "same-origin" });
    const body: unknown = await response.json().catch(() => null);
    if (!response.ok) return setState({ busy: false, error: errorText(body, response.status).message });
    const post = (body as { post: Post }).post;
    try {
      if (title.trim()) await api(`/api/posts/${post.code}`, { method: "PATCH", body: JSON.stringify({ title: title.trim() }) });
    } catch (error) {
      return setState({ busy: false, error: (error as Error).message, url: post.url });
    }
    setText("");
    setTitle("");
    setState({ busy: false, url: post.url });
    onCreated();
  }

  return (
    <details className="rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
      <summary className="cursor-pointer font-medium">New paste</summary>
      <form onSubmit={(e) => void submit(e)} className="mt-3 space-y-3" aria-label="New paste">
        <Field id={ids.text} label="Text">
          <textarea
            id={ids.text}
            required
            rows={8}
            value={text}
            onChange={(e) => setText(e.target.value)}
            className={`${input} font-mono text-sm`}
            spellCheck={false}
          />
        </Field>
        <div className="grid gap-3 sm:grid-cols-4">
          <Field id={ids.title} label="Title">
            <input id={ids.title} value={title} maxLength={30} onChange={(e) => setTitle(e.target.value)} className={input} />
          </Field>
          <Field id={ids.language} label="Language">
            <select id={ids.language} value={language} onChange={(e) => setLanguage(e.target.value)} className={input}>
              <option value={DETECT}>Detect</option>
              {LANGUAGES.map((l) => (
                <option key={l} value={l}>
                  {l}
                </option>
              ))}
            </select>
          </Field>
          <div className="space-y-1">
            <span className="block text-sm font-medium text-zinc-700 dark:text-zinc-300">Privacy</span>
            <PrivacySelect id={ids.privacy} label="Paste privacy" value={privacy} choices={PRIVACIES} onChange={setPrivacy} />
          </div>
          <Field id={ids.expiry} label="Expires">
            <select id={ids.expiry} value={expiry} onChange={(e) => setExpiry(e.target.value)} className={input}>
              {EXPIRY.map(([name], index) => (
                <option key={name} value={String(index)}>
                  {name}
                </option>
              ))}
            </select>
          </Field>
        </div>
        <div className="flex flex-wrap items-center gap-3">
          <button type="submit" className={primaryButton} disabled={state.busy || !text}>
            {state.busy ? "Saving…" : "Create paste"}
          </button>
          {state.error && (
            <p role="alert" className="text-sm text-red-700 dark:text-red-400">
              {state.error}
            </p>
          )}
          {state.url && !state.error && (
            <p className={muted} role="status">
              Created:{" "}
              <a href={state.url} className="font-medium text-brand-600 hover:underline dark:text-brand-400">
                {state.url}
              </a>
            </p>
          )}
        </div>
      </form>
    </details>
  );
}
