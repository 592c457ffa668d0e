"use client";
/**
 * The scaffolding the list panels share (links, webhooks, folders): the heading, one request
 * at a time with its failure shown, the create form, and the list with its loading, empty
 * and failed states. Each panel keeps only its own fields and rows.
 */
import type { FormEvent, ReactNode } from "react";
import { useState } from "react";
import { ApiError } from "./api";
import { ErrorNotice, LoadedList } from "./notices";
import { card, muted, primaryButton } from "./ui";

/** Runs one request of a panel: one at a time (`busy`), its failure shown at the top. */
export type Run = (work: () => Promise<void>) => Promise<void>;

export const errorMessage = (e: unknown): string => (e instanceof ApiError || e instanceof Error ? e.message : String(e));

/** `run` for every request a panel makes; `after` (a refetch) follows each, failed or not. */
export function useRun(after?: () => void): {
  error: string | null;
  busy: boolean;
  run: Run;
  /** The last request was refused for want of a recent confirmation (docs/security.md): show ConfirmFirst. */
  needsConfirmation: boolean;
  /** ConfirmFirst succeeded: clear the refusal, the user tries again. */
  confirmed: () => void;
} {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [needsConfirmation, setNeedsConfirmation] = useState(false);
  const run: Run = async (work) => {
    setBusy(true);
    setError(null);
    setNeedsConfirmation(false);
    try {
      await work();
    } catch (e) {
      setError(errorMessage(e));
      setNeedsConfirmation(e instanceof ApiError && e.status === 403 && e.type === "forbidden");
    } finally {
      setBusy(false);
      after?.();
    }
  };
  const confirmed = () => {
    setNeedsConfirmation(false);
    setError(null);
  };
  return { error, busy, run, needsConfirmation, confirmed };
}

/** The panel's title, what it is for, and the failure of the last request. */
export function PanelHeading({ title, error, children }: { title: string; error: string | null; children: ReactNode }) {
  return (
    <>
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
        <p className={`${muted} mt-1`}>{children}</p>
      </div>
      {error && <ErrorNotice>{error}</ErrorNotice>}
    </>
  );
}

/**
 * A create form in a card: its fields, then the submit button (off while `busy` or
 * `disabled`), then `after` (what the last creation made). `layout` lays the fields out.
 */
export function CreateForm({
  label,
  heading,
  submit,
  busy,
  disabled = false,
  onSubmit,
  layout = "space-y-3",
  after,
  children,
}: {
  label: string;
  heading?: string;
  submit: string;
  busy: boolean;
  disabled?: boolean;
  onSubmit: () => void;
  layout?: string;
  after?: ReactNode;
  children: ReactNode;
}) {
  const send = (event: FormEvent) => {
    event.preventDefault();
    onSubmit();
  };
  return (
    <form onSubmit={send} className={`${card} ${layout}`} aria-label={label}>
      {heading && <h2 className="font-semibold">{heading}</h2>}
      {children}
      <button type="submit" className={primaryButton} disabled={busy || disabled}>
        {submit}
      </button>
      {after}
    </form>
  );
}

/**
 * The panel's items as a labelled list: why loading failed (`error`), "Loading…" while
 * `items` is null, `empty` when there are none, else one `children(item)` each.
 */
export function ItemList<T>({
  items,
  error = null,
  empty,
  label,
  spacing = "space-y-3",
  children,
}: {
  items: readonly T[] | null;
  error?: Error | null;
  empty: string;
  label: string;
  spacing?: string;
  children: (item: T) => ReactNode;
}) {
  if (error) return <ErrorNotice>{error.message}</ErrorNotice>;
  return (
    <LoadedList items={items} empty={empty}>
      {(list) => (
        <ul className={spacing} aria-label={label}>
          {list.map(children)}
        </ul>
      )}
    </LoadedList>
  );
}
