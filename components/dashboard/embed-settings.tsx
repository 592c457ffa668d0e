"use client";
/**
 * The account's embed style (docs/embeds.md): title, description, site name, author line and
 * colour, with template variables, and a live preview rendered by the same function as the
 * share pages' tags (lib/embeds/template.ts), on a sample upload of this account.
 * Saved with PUT /relay/users/@me/embed.
 */
import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Field, fieldIds } from "@/components/field";
import {
  EMBED_LIMITS,
  EMBED_VARIABLES,
  type EmbedFacts,
  type EmbedTemplates,
  type EmbedTextField,
  renderEmbed,
} from "@/lib/embeds/template";
import type { EmbedStyleReply } from "@/lib/replies/embeds";
import type { EmbedSettings } from "@/lib/web/dashboard/settings";
import { api, type OwnAccount, type Reply } from "./api";
import { input, muted, primaryButton } from "./ui";

/** The sample the preview fills the variables from. */
function sampleFacts(user: OwnAccount, shareUrl: string): EmbedFacts {
  return {
    code: "Xy7Pq2Lm",
    url: `${shareUrl}/Xy7Pq2Lm`,
    title: null,
    description: null,
    created_at: new Date().toISOString(),
    view_count: 42,
    like_count: 7,
    file_count: 1,
    file: { name: "holiday.png", size: 1_572_864, mime_type: "image/png", width: 1920, height: 1080 },
    author: { username: user.username, nickname: user.nickname },
  };
}

const TEXT_FIELDS: { name: EmbedTextField; label: string; placeholder: string }[] = [
  { name: "site_name", label: "Site name", placeholder: "{user.nickname}'s uploads" },
  { name: "author", label: "Author line", placeholder: "Uploaded by {user.name}" },
  { name: "title", label: "Title", placeholder: "{file.name}" },
  { name: "description", label: "Description", placeholder: "{file.size} · {post.views} views · {post.date}" },
];

type Draft = Record<EmbedTextField, string> & { color: string | null };

const draftOf = (style: EmbedTemplates): Draft => ({
  title: style.title ?? "",
  description: style.description ?? "",
  site_name: style.site_name ?? "",
  author: style.author ?? "",
  color: style.color,
});

const templatesOf = (draft: Draft): EmbedTemplates => {
  const text = (v: string) => (v.trim() ? v : null);
  return {
    title: text(draft.title),
    description: text(draft.description),
    site_name: text(draft.site_name),
    author: text(draft.author),
    color: draft.color,
  };
};

export function EmbedSettingsForm({ user, settings }: { user: OwnAccount; settings: EmbedSettings }) {
  const [draft, setDraft] = useState<Draft>(draftOf(settings.style));
  const [result, setResult] = useState<{ text: string; error: boolean } | null>(null);
  const save = useMutation({
    mutationFn: () =>
      api<Reply<typeof EmbedStyleReply>>("/relay/users/@me/embed", { method: "PUT", body: JSON.stringify(templatesOf(draft)) }),
    onSuccess: (data) => {
      setDraft(draftOf(data.embed));
      setResult({ text: "Saved.", error: false });
    },
    onError: (error) => setResult({ text: error.message, error: true }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setResult(null);
    save.mutate();
  };
  const set = (name: keyof Draft, value: string | null) => setDraft((d) => ({ ...d, [name]: value }));
  return (
    <form onSubmit={submit} className="grid gap-6 lg:grid-cols-2">
      <div className="min-w-0 space-y-4">
        <p className={muted}>
          How your share links look in Discord, Slack, Telegram and other apps. Leave a field empty for the default. Variables such as{" "}
          <code>{"{file.name}"}</code> are filled from each post.
        </p>
        <TemplateFields draft={draft} onChange={set} />
        <ColorField value={draft.color} operatorColor={settings.color} onChange={(color) => set("color", color)} />
        <VariableList />
        <div className="flex items-center gap-3">
          <button type="submit" className={primaryButton} disabled={save.isPending}>
            {save.isPending ? "Saving…" : "Save embed"}
          </button>
          {result && (
            <p role={result.error ? "alert" : "status"} className={result.error ? "text-sm text-red-600 dark:text-red-400" : muted}>
              {result.text}
            </p>
          )}
        </div>
      </div>
      <EmbedPreview user={user} settings={settings} templates={templatesOf(draft)} />
    </form>
  );
}

/** The four templates, each cut at its limit as the server would refuse it. */
function TemplateFields({ draft, onChange: set }: { draft: Draft; onChange: (name: EmbedTextField, value: string) => void }) {
  const ids = fieldIds("embed", ["title", "description", "site_name", "author"]);
  return (
    <>
      {TEXT_FIELDS.map((f) => (
        <Field key={f.name} id={ids[f.name]} label={f.label}>
          {f.name === "description" ? (
            <textarea
              id={ids[f.name]}
              className={input}
              rows={3}
              maxLength={EMBED_LIMITS[f.name]}
              placeholder={f.placeholder}
              value={draft[f.name]}
              onChange={(e) => set(f.name, e.target.value)}
            />
          ) : (
            <input
              id={ids[f.name]}
              className={input}
              maxLength={EMBED_LIMITS[f.name]}
              placeholder={f.placeholder}
              value={draft[f.name]}
              onChange={(e) => set(f.name, e.target.value)}
            />
          )}
        </Field>
      ))}
    </>
  );
}

/** "My own colour" and its picker; unticked, the operator's colour applies. */
function ColorField({
  value,
  operatorColor,
  onChange,
}: {
  value: string | null;
  operatorColor: string;
  onChange: (color: string | null) => void;
}) {
  const ids = fieldIds("embed-colour", ["on", "color"]);
  return (
    <div className="flex flex-wrap items-center gap-3">
      <label htmlFor={ids.on} className="flex items-center gap-2 text-sm">
        <input id={ids.on} type="checkbox" checked={value !== null} onChange={(e) => onChange(e.target.checked ? operatorColor : null)} />
        My own colour
      </label>
      <input
        id={ids.color}
        type="color"
        aria-label="Embed colour"
        disabled={value === null}
        value={value ?? operatorColor}
        onChange={(e) => onChange(e.target.value)}
        className="h-9 w-14 cursor-pointer rounded border border-zinc-300 disabled:opacity-40 dark:border-zinc-700"
      />
    </div>
  );
}

/** The variables a template may use, from the list the renderer reads. */
function VariableList() {
  return (
    <details className="text-sm">
      <summary className="cursor-pointer">Variables</summary>
      <ul className="mt-2 space-y-1">
        {EMBED_VARIABLES.map((v) => (
          <li key={v.name}>
            <code>{`{${v.name}}`}</code> <span className={muted}>{v.meaning}</span>
          </li>
        ))}
      </ul>
    </details>
  );
}

/** A chat app's card, filled exactly as the share page's tags will be. */
function EmbedPreview({ user, settings, templates }: { user: OwnAccount; settings: EmbedSettings; templates: EmbedTemplates }) {
  const facts = sampleFacts(user, settings.shareUrl);
  const embed = renderEmbed(templates, settings.operator, facts, {
    title: facts.file?.name ?? "",
    description: `An image by ${user.username}`,
    site_name: settings.siteName,
    author: user.username,
    color: settings.color,
  });
  return (
    <section aria-label="Embed preview" className="min-w-0 space-y-2">
      <p className={muted}>Preview (a sample upload, holiday.png)</p>
      <div
        data-testid="embed-preview"
        className="max-w-md overflow-hidden rounded-md border-l-4 bg-zinc-100 p-3 text-sm dark:bg-zinc-800"
        style={{ borderLeftColor: embed.color }}
      >
        <p className="break-words text-xs text-zinc-600 dark:text-zinc-400" data-part="site">
          {embed.site_name}
        </p>
        {embed.author && (
          <p className="mt-1 break-words text-xs font-semibold" data-part="author">
            {embed.author}
          </p>
        )}
        <p className="mt-1 break-words font-semibold text-sky-700 dark:text-sky-400" data-part="title">
          {embed.title}
        </p>
        <p className="mt-1 whitespace-pre-line break-words" data-part="description">
          {embed.description}
        </p>
        <div
          aria-hidden="true"
          className="mt-2 aspect-video w-full rounded bg-gradient-to-br from-amber-200 via-rose-300 to-sky-400 dark:from-amber-700 dark:via-rose-800 dark:to-sky-900"
        />
      </div>
    </section>
  );
}
