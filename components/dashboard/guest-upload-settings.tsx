"use client";
/**
 * A folder's guest uploads in the folders panel (docs/guest-uploads.md): the switch, a
 * password, the per-file and total caps and the closing time, through `PATCH
 * /api/folders/{id}` (`guest_uploads`); the upload page's link while it is open.
 */
import { useId, useState } from "react";
import { Field } from "@/components/field";
import { countOf } from "@/components/plural";
import { formatBytes } from "@/components/share/format";
import { api } from "./api";
import { CopyButton } from "./copy-button";
import type { Folder } from "./folders";
import type { Run } from "./list-panel";
import { input, muted, primaryButton, secondaryButton } from "./ui";

const MB = 1024 * 1024;

/** An ISO time as a `datetime-local` value in the browser's zone. */
function toLocalInput(iso: string | null): string {
  if (!iso) return "";
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

const megabytes = (bytes: number | null): string => (bytes === null ? "" : String(Math.round((bytes / MB) * 100) / 100));
/** "" → null (no cap); megabytes → bytes. */
const bytesOf = (text: string): number | null => (text.trim() === "" ? null : Math.max(1, Math.round(Number(text) * MB)));

type Guest = Folder["guest_uploads"];

function useGuestForm(guest: Guest) {
  const [enabled, setEnabled] = useState(guest.enabled);
  const [maxFile, setMaxFile] = useState(megabytes(guest.max_file_bytes));
  const [maxFiles, setMaxFiles] = useState(guest.max_files === null ? "" : String(guest.max_files));
  const [maxBytes, setMaxBytes] = useState(megabytes(guest.max_bytes));
  const [until, setUntil] = useState(toLocalInput(guest.expires_at));
  const [password, setPassword] = useState("");
  const body = () => ({
    enabled,
    max_file_bytes: bytesOf(maxFile),
    max_files: maxFiles.trim() === "" ? null : Number(maxFiles),
    max_bytes: bytesOf(maxBytes),
    expires_at: until ? new Date(until).toISOString() : null,
    ...(password ? { password } : {}),
  });
  const fields = { enabled, setEnabled, maxFile, setMaxFile, maxFiles, setMaxFiles, maxBytes, setMaxBytes, until, setUntil };
  return { fields, password, setPassword, body };
}

export function GuestUploadSettings({ folder, busy, run }: { folder: Folder; busy: boolean; run: Run }) {
  const guest = folder.guest_uploads;
  const form = useGuestForm(guest);
  const save = (extra: object = {}) =>
    run(async () => {
      await api(`/api/folders/${folder.id}`, { method: "PATCH", body: JSON.stringify({ guest_uploads: { ...form.body(), ...extra } }) });
      form.setPassword("");
    });
  return (
    <details className="rounded-md border border-zinc-200 p-3 dark:border-zinc-800">
      <summary className="cursor-pointer text-sm font-medium">
        Guest uploads: {guest.open ? "open" : guest.enabled ? "on, closed" : "off"}
      </summary>
      <form
        className="mt-3 space-y-3"
        aria-label={`Guest uploads of ${folder.name}`}
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <GuestStatus guest={guest} />
        <GuestFields form={form.fields} />
        <GuestPassword guest={guest} password={form.password} setPassword={form.setPassword} />
        <div className="flex flex-wrap gap-2">
          <button type="submit" className={primaryButton} disabled={busy}>
            Save guest uploads
          </button>
          {guest.password_protected && (
            <button type="button" className={secondaryButton} disabled={busy} onClick={() => void save({ password: null })}>
              Remove password
            </button>
          )}
        </div>
      </form>
    </details>
  );
}

function GuestStatus({ guest }: { guest: Guest }) {
  return (
    <>
      <p className={muted}>
        People without an account can send files into this folder from its upload page. Their files arrive as your private posts and count
        against your quota. {countOf(guest.files_received, "file")} ({formatBytes(guest.bytes_received)}) received since it was switched on.
      </p>
      {guest.url && (
        <p className="flex flex-wrap items-center gap-2 text-sm">
          <a href={guest.url} className="break-all text-brand-700 hover:underline dark:text-brand-400">
            {guest.url}
          </a>
          <CopyButton value={guest.url} />
        </p>
      )}
    </>
  );
}

type Fields = ReturnType<typeof useGuestForm>["fields"];

function GuestFields({ form }: { form: Fields }) {
  const ids = { on: useId(), file: useId(), files: useId(), bytes: useId(), until: useId() };
  return (
    <>
      <label htmlFor={ids.on} className="flex items-center gap-2 text-sm">
        <input id={ids.on} type="checkbox" checked={form.enabled} onChange={(e) => form.setEnabled(e.target.checked)} />
        Accept guest uploads
      </label>
      <div className="grid gap-3 sm:grid-cols-2">
        <Field id={ids.file} label="Largest file (MB)" hint="Empty: your plan's limit.">
          <input
            id={ids.file}
            className={input}
            inputMode="decimal"
            value={form.maxFile}
            onChange={(e) => form.setMaxFile(e.target.value)}
          />
        </Field>
        <Field id={ids.files} label="Files in all" hint="Empty: no limit.">
          <input
            id={ids.files}
            className={input}
            inputMode="numeric"
            value={form.maxFiles}
            onChange={(e) => form.setMaxFiles(e.target.value)}
          />
        </Field>
        <Field id={ids.bytes} label="Size in all (MB)" hint="Empty: no limit.">
          <input
            id={ids.bytes}
            className={input}
            inputMode="decimal"
            value={form.maxBytes}
            onChange={(e) => form.setMaxBytes(e.target.value)}
          />
        </Field>
        <Field id={ids.until} label="Open until" hint="Empty: until you switch it off.">
          <input
            id={ids.until}
            className={input}
            type="datetime-local"
            value={form.until}
            onChange={(e) => form.setUntil(e.target.value)}
          />
        </Field>
      </div>
    </>
  );
}

function GuestPassword({ guest, password, setPassword }: { guest: Guest; password: string; setPassword: (v: string) => void }) {
  const id = useId();
  return (
    <Field
      id={id}
      label={guest.password_protected ? "New password" : "Password (optional)"}
      hint={
        guest.password_protected ? "A password is set. Leave empty to keep it." : "8 to 200 characters. Guests type it before uploading."
      }
    >
      <input
        id={id}
        className={input}
        type="password"
        autoComplete="new-password"
        minLength={8}
        maxLength={200}
        value={password}
        onChange={(e) => setPassword(e.target.value)}
      />
    </Field>
  );
}
