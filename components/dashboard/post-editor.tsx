"use client";
/**
 * Edit one post: title, description, privacy, expiry and view limit (docs/expiry.md), the
 * favourite mark and tags (docs/tags.md), the QR code (docs/qr-and-visits.md), the share-page
 * password (docs/share-passwords.md); the files of an album (add, remove); delete.
 */
import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { AdaptiveVideo } from "@/components/video/AdaptiveVideo";
import type { PostReply, SharePasswordReply } from "@/lib/presenters/posts";
import { api, type Post, type Privacy, type Reply } from "./api";
import { PRIVACIES, PRIVACY_LABEL, PRIVACY_MEANING } from "./privacies";
import { sendFiles } from "./upload";
import { dangerButton, formatBytes, input, label, muted, primaryButton, secondaryButton } from "./ui";
import { CopyButton } from "./copy-button";
import { PostLabels, PostQr } from "./post-labels";
import { Field } from "@/components/field";

/** An ISO time as the value of a `datetime-local` input, in the browser's zone. */
function toLocalInput(iso: string | null): string {
  if (!iso) return "";
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

const ALBUM_MAX_FILES = 9;

/** The editor's last word: a success (status) or a failure (alert). */
type Notice = { text: string; error: boolean };
/** Runs one change of the post: one at a time (`busy`), a thrown error shown as the notice. */
type Run = (work: () => Promise<void>) => Promise<void>;

/** What every part of the editor gets: the post, the one runner, and how to report back. */
type PartProps = {
  post: Post;
  busy: boolean;
  run: Run;
  notify: (notice: Notice) => void;
  onChanged: (post: Post) => void;
};

export function PostEditor({
  post,
  onClose,
  onChanged,
  onDeleted,
}: {
  post: Post;
  onClose: () => void;
  onChanged: (post: Post) => void;
  onDeleted: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const { busy, message, setMessage, run } = useRunner();
  const headingId = useId();
  const parts: PartProps = { post, busy, run, notify: setMessage, onChanged };

  useEffect(() => {
    const node = dialog.current;
    if (node && !node.open) node.showModal();
  }, []);

  const deletePost = () =>
    void run(async () => {
      if (!window.confirm("Delete this post and all its files? This cannot be undone.")) return;
      await api(postPath(post), { method: "DELETE" });
      onDeleted();
    });

  return (
    <dialog
      ref={dialog}
      onClose={onClose}
      aria-labelledby={headingId}
      className="m-auto w-[min(40rem,calc(100vw-2rem))] rounded-xl bg-white p-0 text-zinc-900 shadow-xl backdrop:bg-black/50 dark:bg-zinc-900 dark:text-zinc-100"
    >
      <div className="max-h-[85vh] space-y-5 overflow-y-auto p-5">
        <div className="flex items-start justify-between gap-3">
          <h2 id={headingId} className="text-lg font-semibold">
            Edit post <span className="font-mono text-sm text-zinc-500 dark:text-zinc-400">{post.code}</span>
          </h2>
          <button type="button" className={secondaryButton} onClick={() => dialog.current?.close()}>
            Close
          </button>
        </div>

        <div className="flex flex-wrap items-center gap-2 text-sm">
          <a href={post.url} target="_blank" rel="noreferrer" className="text-brand-600 underline dark:text-brand-400">
            Open share page
          </a>
          <CopyButton value={post.url} label="Copy link" />
        </div>

        <DetailsForm {...parts} />
        {!post.team_id && <PostLabels {...parts} onSaved={() => setMessage({ text: "Favourite and tags saved.", error: false })} />}
        <PostQr post={post} />
        {!post.team_id && <SharePassword {...parts} />}
        <PostFiles {...parts} onDeleted={onDeleted} />
        <ReadText post={post} />

        {message && (
          <p role={message.error ? "alert" : "status"} className={message.error ? "text-sm text-red-600 dark:text-red-400" : muted}>
            {message.text}
          </p>
        )}

        <div className="border-t border-zinc-200 pt-4 dark:border-zinc-800">
          <button type="button" className={dangerButton} disabled={busy} onClick={deletePost}>
            Delete post
          </button>
        </div>
      </div>
    </dialog>
  );
}

const postPath = (post: Post): string => `/api/posts/${encodeURIComponent(post.code)}`;

function useRunner(): { busy: boolean; message: Notice | null; setMessage: (notice: Notice | null) => void; run: Run } {
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<Notice | null>(null);
  const run: Run = async (work) => {
    setBusy(true);
    setMessage(null);
    try {
      await work();
    } catch (error) {
      setMessage({ text: error instanceof Error ? error.message : String(error), error: true });
    } finally {
      setBusy(false);
    }
  };
  return { busy, message, setMessage, run };
}

/** The details form's fields as typed. */
type Draft = { title: string; description: string; privacy: Privacy; expiresAt: string; maxViews: string };
type Edit = (change: Partial<Draft>) => void;

function draftOf(post: Post): Draft {
  return {
    title: post.title ?? "",
    description: post.description ?? "",
    privacy: post.privacy,
    expiresAt: toLocalInput(post.expires_at),
    maxViews: post.max_views === null ? "" : String(post.max_views),
  };
}

/** The PATCH body of the draft: a team post's privacy is never sent, nor an unchanged expiry or view limit. */
function detailsPatch(post: Post, draft: Draft): Record<string, unknown> {
  const body: Record<string, unknown> = { title: draft.title.trim() || null, description: draft.description.trim() || null };
  if (!post.team_id) body.privacy = draft.privacy;
  // Sent only when changed: re-sending an unchanged past-the-minute time would be refused.
  if (draft.expiresAt !== toLocalInput(post.expires_at)) body.expires_at = draft.expiresAt ? new Date(draft.expiresAt).toISOString() : null;
  const views = draft.maxViews.trim() === "" ? null : Number(draft.maxViews);
  if (views !== post.max_views) body.max_views = views;
  return body;
}

/** Title, description, privacy, expiry and view limit (docs/expiry.md), saved in one PATCH. */
function DetailsForm({ post, busy, run, notify, onChanged }: PartProps) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(post));
  const edit: Edit = (change) => setDraft((current) => ({ ...current, ...change }));
  const ids = { title: useId(), description: useId(), privacy: useId(), expires: useId(), views: useId() };

  const save = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const body = detailsPatch(post, draft);
      const { post: updated } = await api<Reply<typeof PostReply>>(postPath(post), { method: "PATCH", body: JSON.stringify(body) });
      onChanged(updated);
      notify({ text: "Saved.", error: false });
    });
  };

  return (
    <form onSubmit={save} className="space-y-4">
      <Field id={ids.title} label="Title">
        <input id={ids.title} value={draft.title} maxLength={100} onChange={(e) => edit({ title: e.target.value })} className={input} />
      </Field>
      <Field id={ids.description} label="Description">
        <textarea
          id={ids.description}
          value={draft.description}
          rows={3}
          maxLength={1000}
          onChange={(e) => edit({ description: e.target.value })}
          className={input}
        />
      </Field>
      <Field id={ids.privacy} label="Privacy" hint={post.team_id ? "Team posts are always private." : undefined}>
        <select
          id={ids.privacy}
          value={draft.privacy}
          disabled={!!post.team_id}
          onChange={(e) => edit({ privacy: e.target.value as Privacy })}
          className={input}
        >
          {PRIVACIES.map((privacy) => (
            <option key={privacy} value={privacy}>
              {PRIVACY_LABEL[privacy]}: {PRIVACY_MEANING[privacy]}
            </option>
          ))}
        </select>
      </Field>
      <LimitFields ids={ids} draft={draft} edit={edit} viewCount={post.view_count} />
      <button type="submit" className={primaryButton} disabled={busy}>
        Save changes
      </button>
    </form>
  );
}

/** When the post goes: at a time, or after so many views (docs/expiry.md). */
function LimitFields({
  ids,
  draft,
  edit,
  viewCount,
}: {
  ids: { expires: string; views: string };
  draft: Draft;
  edit: Edit;
  viewCount: number;
}) {
  return (
    <div className="grid gap-4 sm:grid-cols-2">
      <Field id={ids.expires} label="Expires" hint="Empty: never. Then the post and its files are deleted.">
        <input
          id={ids.expires}
          type="datetime-local"
          value={draft.expiresAt}
          onChange={(e) => edit({ expiresAt: e.target.value })}
          className={input}
        />
      </Field>
      <Field id={ids.views} label="View limit" hint={<>Empty: no limit. Counts every view but yours ({viewCount} so far).</>}>
        <input
          id={ids.views}
          type="number"
          min={1}
          step={1}
          value={draft.maxViews}
          onChange={(e) => edit({ maxViews: e.target.value })}
          className={input}
        />
      </Field>
    </div>
  );
}

/** The share-page password (docs/share-passwords.md): set, replace or remove; never shown. */
function SharePassword({ post, busy, run, notify, onChanged }: PartProps) {
  const [password, setPassword] = useState("");
  const passwordId = useId();

  const changePassword = (next: string | null) =>
    void run(async () => {
      // A fetch, not a server action: the gallery also runs without Next's runtime (docs/dashboard-scripts.md).
      await api<Reply<typeof SharePasswordReply>>(`/relay/posts/${encodeURIComponent(post.code)}/share-password`, {
        method: "PUT",
        body: JSON.stringify({ password: next }),
      });
      setPassword("");
      onChanged({ ...post, password_protected: next !== null });
      notify({ text: next === null ? "Password removed." : "Password set.", error: false });
    });

  return (
    <section className="space-y-2" aria-label="Share-page protection">
      <label htmlFor={passwordId} className={label}>
        Share-page password {post.password_protected ? "(set)" : "(none)"}
      </label>
      <div className="flex flex-wrap gap-2">
        <input
          id={passwordId}
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          className={input}
        />
        <button type="button" className={secondaryButton} disabled={busy || !password} onClick={() => changePassword(password)}>
          Set password
        </button>
        {post.password_protected && (
          <button type="button" className={secondaryButton} disabled={busy} onClick={() => changePassword(null)}>
            Remove password
          </button>
        )}
      </div>
      <p className={muted}>Visitors must enter it on the share page; apps see the post as private.</p>
    </section>
  );
}

/** The files of the post (an album of up to ALBUM_MAX_FILES): add, preview, remove; removing the last deletes the post. */
function PostFiles({ post, busy, run, notify, onChanged, onDeleted }: PartProps & { onDeleted: () => void }) {
  const fileInput = useRef<HTMLInputElement>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const path = postPath(post);

  const removeFile = (name: string) =>
    void run(async () => {
      const last = post.files.length === 1;
      if (!window.confirm(last ? "This is the only file: removing it deletes the post. Continue?" : `Remove ${name} from this post?`))
        return;
      await api(`${path}/files/${encodeURIComponent(name)}`, { method: "DELETE" });
      if (last) return onDeleted();
      const { post: updated } = await api<Reply<typeof PostReply>>(path);
      onChanged(updated);
    });

  const addFiles = (files: File[]) =>
    void run(async () => {
      setProgress(0);
      const result = await sendFiles(`${path}/files`, files, {}, (loaded, total) =>
        setProgress(total ? Math.round((loaded / total) * 100) : 0),
      );
      setProgress(null);
      if (!result.ok) throw new Error(result.message);
      const body = result.body as { post: Post; failed?: { index: number; error: { message: string } }[] };
      onChanged(body.post);
      if (body.failed?.length) {
        notify({
          text: body.failed.map((f) => `${files[f.index]?.name ?? `File ${f.index + 1}`}: ${f.error.message}`).join(" "),
          error: true,
        });
      }
    });

  return (
    <section className="space-y-2" aria-label="Files">
      <div className="flex items-center justify-between gap-2">
        <h3 className="font-medium">
          Files ({post.files.length}/{ALBUM_MAX_FILES})
        </h3>
        <button
          type="button"
          className={secondaryButton}
          disabled={busy || post.files.length >= ALBUM_MAX_FILES}
          onClick={() => fileInput.current?.click()}
        >
          Add files
        </button>
        <input
          ref={fileInput}
          type="file"
          multiple
          accept="image/*,video/*"
          className="sr-only"
          tabIndex={-1}
          aria-label="Files to add"
          onChange={(e) => {
            const files = Array.from(e.target.files ?? []);
            e.target.value = "";
            if (files.length) addFiles(files);
          }}
        />
      </div>
      {progress !== null && <progress max={100} value={progress} className="h-2 w-full" aria-label="Adding files" />}
      <VideoPreviews files={post.files} />
      <ul className="divide-y divide-zinc-200 rounded-md border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
        {post.files.map((file) => (
          <FileRow key={file.name} file={file} busy={busy} onRemove={() => removeFile(file.name)} />
        ))}
      </ul>
    </section>
  );
}

type PostFile = Post["files"][number];

function VideoPreviews({ files }: { files: readonly PostFile[] }) {
  return files
    .filter((file) => file.mime_type.startsWith("video/"))
    .map((file) => (
      // The adaptive stream once it is ready (hls.js), the fast-start MP4 until then.
      <AdaptiveVideo
        key={file.name}
        src={file.url}
        streamUrl={file.stream_url}
        type={file.mime_type}
        controls
        playsInline
        preload="metadata"
        poster={file.thumbnail_url ?? undefined}
        className="max-h-72 w-full rounded bg-black"
        aria-label={`Preview of ${file.name}`}
      />
    ));
}

function FileRow({ file, busy, onRemove }: { file: PostFile; busy: boolean; onRemove: () => void }) {
  return (
    <li className="flex items-center gap-3 p-2 text-sm">
      {file.thumbnail_url || file.mime_type.startsWith("image/") ? (
        <img src={file.thumbnail_url ?? file.url} alt="" className="h-12 w-12 shrink-0 rounded object-cover" />
      ) : (
        <span className="h-12 w-12 shrink-0 rounded bg-zinc-200 dark:bg-zinc-800" />
      )}
      <a href={file.url} target="_blank" rel="noreferrer" className="min-w-0 flex-1 truncate underline">
        {file.name}
      </a>
      <span className="shrink-0 text-zinc-500 dark:text-zinc-400">{formatBytes(file.size)}</span>
      <button type="button" className={secondaryButton} disabled={busy} onClick={onRemove} aria-label={`Remove ${file.name}`}>
        Remove
      </button>
    </li>
  );
}

/**
 * The text read from the post's images (docs/ocr.md), the owner's to copy: one block per
 * image with text. Nothing while no image has any (or it is still being read).
 */
function ReadText({ post }: { post: Post }) {
  const texts = post.files.filter((f) => f.text?.content).map((f) => ({ name: f.name, content: f.text!.content }));
  if (!texts.length) return null;
  return (
    <section aria-label="Text in the images" className="space-y-2">
      <h3 className="text-sm font-semibold">Text in the images</h3>
      <p className={muted}>Read automatically; it may have mistakes. Only you see it and can search it.</p>
      {texts.map((t) => (
        <div key={t.name} className="space-y-1">
          {texts.length > 1 && <p className="text-xs text-zinc-500 dark:text-zinc-400">{t.name}</p>}
          <pre className="max-h-40 overflow-auto whitespace-pre-wrap rounded bg-zinc-100 p-2 text-xs dark:bg-zinc-800" data-read-text>
            {t.content}
          </pre>
          <CopyButton value={t.content} label="Copy text" />
        </div>
      ))}
    </section>
  );
}
