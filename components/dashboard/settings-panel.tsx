"use client";
/**
 * Account settings over Relay's own endpoints: profile (PATCH /users/@me), avatar and
 * banner, theme, custom link domain, notification preferences, two-factor sign-in and
 * passkeys (sign-in-factors.tsx), sessions, the plan, and taking your data or leaving
 * (leave-forms.tsx).
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRef, useState, type FormEvent, type ReactNode } from "react";
import type { Preferences as PreferencesSchema, Session as SessionSchema, SessionList } from "@/lib/presenters/account";
import type { OwnAccountReply } from "@/lib/presenters/users";
import { api, type OwnAccount, type Reply } from "./api";
import { EmailForm } from "./email-form";
import { EmbedSettingsForm } from "./embed-settings";
import { DeleteAccountForm, DownloadData } from "./leave-forms";
import { LinkDomainProof } from "./link-domain-proof";
import { PasswordForm } from "./password-form";
import { UploadPrivacyForm } from "./upload-privacy-form";
import { DefaultDomainForm } from "./default-domain-form";
import { PasskeySettings, TwoFactorSettings } from "./sign-in-factors";
import { sendFiles } from "./upload";
import { Field, fieldIds } from "@/components/field";
import type { FirstAccount } from "@/lib/web/dashboard/settings";
import { Pending } from "./notices";
import { card, dangerButton, formatBytes, formatDate, input, label, muted, primaryButton, secondaryButton } from "./ui";

type Preferences = Reply<typeof PreferencesSchema>;
type Session = Reply<typeof SessionSchema>;

type ThemeMode = "system" | "light" | "dark";

function themeModeOf(theme: unknown): ThemeMode {
  const mode = (theme as { mode?: unknown } | null)?.mode;
  return mode === "light" || mode === "dark" ? mode : "system";
}

/** Each title once per page: its heading's id comes from it (fieldIds' reason). */
function Section({ title, children }: { title: string; children: ReactNode }) {
  const id = `settings-${title.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
  return (
    <section aria-labelledby={id} className={`${card} space-y-4`}>
      <h2 id={id} className="text-lg font-medium">
        {title}
      </h2>
      {children}
    </section>
  );
}

function Message({ result }: { result: { text: string; error: boolean } | null }) {
  if (!result) return null;
  return (
    <p role={result.error ? "alert" : "status"} className={result.error ? "text-sm text-red-600 dark:text-red-400" : muted}>
      {result.text}
    </p>
  );
}

function ProfileForm({ user }: { user: OwnAccount }) {
  const queryClient = useQueryClient();
  const [nickname, setNickname] = useState(user.nickname);
  const [bio, setBio] = useState(user.bio ?? "");
  const [linkDomain, setLinkDomain] = useState(user.link_domain ?? "");
  const [theme, setTheme] = useState<ThemeMode>(themeModeOf(user.theme));
  const [result, setResult] = useState<{ text: string; error: boolean } | null>(null);
  const ids = fieldIds("profile", ["nickname", "bio", "domain", "theme"]);
  const save = useMutation({
    mutationFn: () =>
      api<Reply<typeof OwnAccountReply>>("/relay/users/@me", {
        method: "PATCH",
        body: JSON.stringify({
          nickname: nickname.trim() || null,
          bio: bio.trim() || null,
          link_domain: linkDomain.trim() || null,
          theme: { mode: theme },
        }),
      }),
    onSuccess: (data) => {
      queryClient.setQueryData(["relay-me"], data.user);
      setResult({ text: "Saved.", error: false });
    },
    onError: (error) => setResult({ text: error.message, error: true }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setResult(null);
    save.mutate();
  };
  return (
    <form onSubmit={submit} className="grid gap-4 sm:grid-cols-2">
      <Field id={ids.nickname} label="Display name">
        <input id={ids.nickname} value={nickname} maxLength={32} onChange={(e) => setNickname(e.target.value)} className={input} />
      </Field>
      <Field id={ids.theme} label="Theme">
        <select id={ids.theme} value={theme} onChange={(e) => setTheme(e.target.value as ThemeMode)} className={input}>
          <option value="system">Same as my device</option>
          <option value="light">Light</option>
          <option value="dark">Dark</option>
        </select>
      </Field>
      <div className="space-y-1 sm:col-span-2">
        <label htmlFor={ids.bio} className={label}>
          Bio
        </label>
        <textarea id={ids.bio} value={bio} maxLength={200} rows={2} onChange={(e) => setBio(e.target.value)} className={input} />
      </div>
      <div className="space-y-1 sm:col-span-2">
        <label htmlFor={ids.domain} className={label}>
          Custom link domain
        </label>
        <input
          id={ids.domain}
          value={linkDomain}
          placeholder="links.example.com"
          onChange={(e) => setLinkDomain(e.target.value)}
          className={input}
          aria-describedby={`${ids.domain}-help`}
        />
        <p id={`${ids.domain}-help`} className={muted}>
          Point the domain&apos;s DNS at this service and prove it is yours with a TXT record (shown once saved); share links then read
          https://{linkDomain.trim() || "links.example.com"}/code. Leave empty to use the default.
        </p>
        <LinkDomainProof user={user} />
      </div>
      <div className="flex items-center gap-3 sm:col-span-2">
        <button type="submit" className={primaryButton} disabled={save.isPending}>
          Save profile
        </button>
        <Message result={result} />
      </div>
    </form>
  );
}

function ImagePicker({ kind, current }: { kind: "avatar" | "banner"; current: string | null }) {
  const queryClient = useQueryClient();
  const inputRef = useRef<HTMLInputElement>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [result, setResult] = useState<{ text: string; error: boolean } | null>(null);
  const title = kind === "avatar" ? "Avatar" : "Banner";
  const upload = async (file: File) => {
    setResult(null);
    setProgress(0);
    const outcome = await sendFiles(`/relay/users/@me/${kind}`, [file], {}, (loaded, total) =>
      setProgress(total ? Math.round((loaded / total) * 100) : 0),
    );
    setProgress(null);
    if (!outcome.ok) return setResult({ text: outcome.message, error: true });
    queryClient.setQueryData(["relay-me"], (outcome.body as { user: OwnAccount }).user);
    setResult({ text: `${title} updated.`, error: false });
  };
  const remove = async () => {
    try {
      queryClient.setQueryData(
        ["relay-me"],
        (await api<Reply<typeof OwnAccountReply>>(`/relay/users/@me/${kind}`, { method: "DELETE" })).user,
      );
      setResult({ text: `${title} removed.`, error: false });
    } catch (error) {
      setResult({ text: (error as Error).message, error: true });
    }
  };
  return (
    <div className="space-y-2">
      <p className={label}>{title}</p>
      <div
        className={
          kind === "avatar"
            ? "h-20 w-20 overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-800"
            : "aspect-[3/1] w-full overflow-hidden rounded-lg bg-zinc-200 dark:bg-zinc-800"
        }
      >
        {current && <img src={current} alt={`Current ${kind}`} className="h-full w-full object-cover" />}
      </div>
      <div className="flex flex-wrap gap-2">
        <button type="button" className={secondaryButton} onClick={() => inputRef.current?.click()}>
          Upload {kind}
        </button>
        {kind === "banner" && current && (
          <button type="button" className={secondaryButton} onClick={() => void remove()}>
            Remove
          </button>
        )}
        {kind === "avatar" && (
          <button type="button" className={secondaryButton} onClick={() => void remove()}>
            Reset
          </button>
        )}
        <input
          ref={inputRef}
          type="file"
          accept="image/*"
          className="sr-only"
          tabIndex={-1}
          aria-label={`${title} image`}
          onChange={(e) => {
            const file = e.target.files?.[0];
            e.target.value = "";
            if (file) void upload(file);
          }}
        />
      </div>
      {progress !== null && <progress max={100} value={progress} className="h-2 w-full" aria-label={`${title} upload progress`} />}
      <Message result={result} />
    </div>
  );
}

const PREFERENCE_LABELS: Record<keyof Preferences, string> = {
  likes: "Someone likes my post",
  comments: "Someone comments on my post",
  comment_likes: "Someone likes my comment",
  follows: "Someone follows me",
};

function PreferencesForm() {
  const queryClient = useQueryClient();
  const prefs = useQuery({ queryKey: ["preferences"], queryFn: () => api<Preferences>("/relay/preferences") });
  const [error, setError] = useState<string | null>(null);
  const change = useMutation({
    mutationFn: (patch: Partial<Preferences>) => api<Preferences>("/relay/preferences", { method: "PATCH", body: JSON.stringify(patch) }),
    onSuccess: (data) => queryClient.setQueryData(["preferences"], data),
    onError: (e) => setError(e.message),
  });
  if (!prefs.data) return <Pending error={prefs.error} />;
  return (
    <fieldset className="space-y-2">
      <legend className={muted}>Notify me when:</legend>
      {(Object.keys(PREFERENCE_LABELS) as (keyof Preferences)[]).map((key) => (
        <label key={key} className="flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            className="h-4 w-4 accent-brand-600"
            checked={prefs.data[key]}
            disabled={change.isPending}
            onChange={(e) => change.mutate({ [key]: e.target.checked })}
          />
          {PREFERENCE_LABELS[key]}
        </label>
      ))}
      {error && (
        <p role="alert" className="text-sm text-red-600">
          {error}
        </p>
      )}
    </fieldset>
  );
}

function SessionsList() {
  const queryClient = useQueryClient();
  const sessions = useQuery({ queryKey: ["sessions"], queryFn: () => api<Reply<typeof SessionList>>("/relay/sessions") });
  const [error, setError] = useState<string | null>(null);
  const signOut = async (session: Session | "all") => {
    setError(null);
    try {
      if (session === "all") await api("/relay/sessions", { method: "DELETE" });
      else await api(`/relay/sessions/${encodeURIComponent(session.id)}`, { method: "DELETE" });
      // Signing out this browser's own session ends the dashboard too.
      if (session === "all" || session.current) {
        window.location.assign("/signin");
        return;
      }
      await queryClient.invalidateQueries({ queryKey: ["sessions"] });
    } catch (e) {
      setError((e as Error).message);
    }
  };
  if (!sessions.data) return <Pending error={sessions.error} />;
  return (
    <div className="space-y-3">
      <ul className="divide-y divide-zinc-200 dark:divide-zinc-800">
        {sessions.data.sessions.map((s) => (
          <li key={s.id} className="flex flex-wrap items-center justify-between gap-2 py-2 text-sm">
            <div>
              <p className="font-medium">
                {s.name ?? "Unknown device"}
                {s.current && (
                  <span className="ml-2 rounded bg-brand-50 px-1.5 py-0.5 text-xs text-brand-700 dark:bg-brand-500/15 dark:text-brand-400">
                    this browser
                  </span>
                )}
              </p>
              <p className="text-xs text-zinc-500 dark:text-zinc-400">
                signed in {formatDate(s.created_at)} · last used {formatDate(s.last_active_at)}
              </p>
            </div>
            <button type="button" className={secondaryButton} onClick={() => void signOut(s)}>
              Log out<span className="sr-only"> {s.name ?? "device"}</span>
            </button>
          </li>
        ))}
      </ul>
      <button type="button" className={dangerButton} onClick={() => void signOut("all")}>
        Log out everywhere
      </button>
      {error && (
        <p role="alert" className="text-sm text-red-600">
          {error}
        </p>
      )}
    </div>
  );
}

const PLAN_TEXT: Record<OwnAccount["plan"], string> = {
  free: "Free",
  plus: "Plus: larger files, video to GIF, more quota",
  ultra: "Ultra: everything in Plus, teams and the most quota",
};

/** `first`: the account as the server read it for this page (lib/web/dashboard/settings.ts): no second fetch of it. */
export interface SettingsProps {
  first?: FirstAccount;
}

export function SettingsPanel({ first }: SettingsProps) {
  // GET answers the account itself; PATCH and the image routes answer {user} (docs/relay-account.md).
  const me = useQuery({
    queryKey: ["relay-me"],
    queryFn: () => api<OwnAccount>("/relay/users/@me"),
    initialData: first?.account,
    initialDataUpdatedAt: first?.readAt,
  });
  if (!me.data) return <Pending error={me.error} />;
  const user = me.data;
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold tracking-tight">Settings</h1>
      <Section title="Profile">
        <ProfileForm user={user} />
      </Section>
      <Section title="Images">
        <div className="grid gap-6 sm:grid-cols-[auto_1fr]">
          <ImagePicker kind="avatar" current={user.avatar} />
          <ImagePicker kind="banner" current={user.banner} />
        </div>
      </Section>
      {first && (
        <Section title="Uploads">
          <UploadPrivacyForm initial={first.uploadPrivacy} />
          <DefaultDomainForm initial={first.domains} />
        </Section>
      )}
      {first && (
        <Section title="Embeds">
          <EmbedSettingsForm user={user} settings={first.embed} />
        </Section>
      )}
      <Section title="Notifications">
        <PreferencesForm />
      </Section>
      <Section title="Password">
        <PasswordForm />
      </Section>
      <Section title="Email address">
        <EmailForm user={user} />
      </Section>
      <Section title="Two-factor sign-in">
        <TwoFactorSettings />
      </Section>
      <Section title="Passkeys">
        <PasskeySettings />
      </Section>
      <Section title="Sessions">
        <SessionsList />
      </Section>
      <Section title="Plan">
        <p>
          Your plan: <strong>{PLAN_TEXT[user.plan]}</strong>
        </p>
        <p className={muted}>
          Weekly quota {formatBytes(user.limits.usage.quota)}, files up to {formatBytes(user.upload_limits.file_bytes)}. Plans are changed
          by the operator of this service ({user.email ? "they can reach you at your account email" : "contact them"}).
        </p>
      </Section>
      <Section title="Your data">
        <DownloadData />
      </Section>
      <Section title="Delete account">
        <DeleteAccountForm username={user.username} />
      </Section>
    </div>
  );
}
