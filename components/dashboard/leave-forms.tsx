"use client";
/**
 * Settings → Your data (docs/account-deletion.md): "Download my data" (GET
 * /relay/users/@me/export, a zip the browser saves as it arrives) and deleting the account
 * (POST /relay/users/@me/delete) with the password, or a code from the authenticator app for
 * an account without one. Owning a team with other members asks once more, naming the teams.
 */
import { useState, type FormEvent } from "react";
import { Field, fieldIds } from "@/components/field";
import { proofBody } from "./account-form";
import { api, ApiError } from "./api";
import { dangerButton, input, muted, secondaryButton } from "./ui";

export function DownloadData() {
  return (
    <div className="space-y-2">
      <p className={muted}>
        A zip of every file you uploaded, as uploaded, with your posts, comments, likes, folders and short links as JSON. Large accounts
        take a while: the download starts at once and grows as it is made.
      </p>
      <a href="/relay/users/@me/export" download className={`${secondaryButton} inline-flex`}>
        Download my data
      </a>
    </div>
  );
}

export function DeleteAccountForm({ username }: { username: string }) {
  const ids = fieldIds("delete-account", ["proof", "name", "teams"]);
  const [error, setError] = useState<string | null>(null);
  const [teamsAsked, setTeamsAsked] = useState(false);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    if (
      String(data.get("name") ?? "")
        .trim()
        .toLowerCase() !== username.toLowerCase()
    ) {
      setError(`Type your username, ${username}, to confirm.`);
      return;
    }
    const proof = String(data.get("proof") ?? "").trim();
    setBusy(true);
    setError(null);
    try {
      const body = {
        ...(proof === "" ? {} : proofBody(proof)),
        delete_teams: data.get("teams") === "on",
      };
      await api("/relay/users/@me/delete", { method: "POST", body: JSON.stringify(body) });
      // Every session of the account is gone, this one too.
      window.location.assign("/");
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 403 && /team/.test(failure.message)) setTeamsAsked(true);
      setError((failure as Error).message);
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} className="grid max-w-md gap-3">
      <p className={muted}>
        Deleting your account removes your posts and their files, keys, sessions, webhooks, folders, short links, comments and likes. It
        cannot be undone. Download your data first if you want to keep it.
      </p>
      <Field id={ids.proof} label="Password" hint="No password (GitHub, OpenID)? A code from your authenticator app.">
        <input id={ids.proof} name="proof" type="password" autoComplete="current-password" className={input} />
      </Field>
      <Field id={ids.name} label="Your username, to confirm">
        <input id={ids.name} name="name" autoComplete="off" required className={input} />
      </Field>
      {teamsAsked && (
        <label htmlFor={ids.teams} className="flex items-center gap-2 text-sm">
          <input id={ids.teams} name="teams" type="checkbox" />
          Delete the teams I own too, with their posts (their members lose them)
        </label>
      )}
      <div>
        <button type="submit" disabled={busy} className={dangerButton}>
          Delete my account
        </button>
      </div>
      {error && (
        <p role="alert" className="text-sm text-red-600 dark:text-red-400">
          {error}
        </p>
      )}
    </form>
  );
}
