/** Small server-rendered pieces shared by the console's pages. */
import Link from "next/link";
import type { ReactNode } from "react";
import { card, muted } from "@/components/dashboard/ui";

/** The outcome of the last action, carried in the URL by the server action's redirect. */
export function Flash({ notice, error }: { notice?: string; error?: string }) {
  if (error) {
    return (
      <p
        role="alert"
        className="rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-200"
      >
        {error}
      </p>
    );
  }
  if (notice) {
    return (
      <p
        role="status"
        className="rounded-md border border-emerald-300 bg-emerald-50 px-3 py-2 text-sm text-emerald-800 dark:border-emerald-800 dark:bg-emerald-950 dark:text-emerald-200"
      >
        {notice}
      </p>
    );
  }
  return null;
}

export function PageHeading({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="mb-4 space-y-1">
      <h1 className="text-2xl font-bold tracking-tight">{title}</h1>
      {children && <p className={muted}>{children}</p>}
    </div>
  );
}

export function Stat({ label, value }: { label: string; value: string | number }) {
  return (
    <div className={card}>
      <dt className={muted}>{label}</dt>
      <dd className="mt-1 text-2xl font-semibold tabular-nums" data-stat={label}>
        {value}
      </dd>
    </div>
  );
}

/** Previous/next links for page-numbered lists. */
export function Pager({ page, pageCount, href }: { page: number; pageCount: number; href: (page: number) => string }) {
  if (pageCount <= 1) return null;
  const link = "rounded-md border border-zinc-300 px-3 py-1.5 text-sm hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800";
  return (
    <nav aria-label="Pages" className="mt-4 flex items-center gap-3">
      {page > 1 && (
        <Link className={link} href={href(page - 1)} rel="prev">
          Previous
        </Link>
      )}
      <span className={muted}>
        Page {page} of {pageCount}
      </span>
      {page < pageCount && (
        <Link className={link} href={href(page + 1)} rel="next">
          Next
        </Link>
      )}
    </nav>
  );
}

/** Hidden field telling the action where to return. */
export const Back = ({ path }: { path: string }) => <input type="hidden" name="back" value={path} />;

export type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/** One query parameter as a string (the first, when repeated). */
export const param = (params: Record<string, string | string[] | undefined>, name: string): string | undefined => {
  const value = params[name];
  return Array.isArray(value) ? value[0] : value;
};

export const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en")} ${n === 1 ? one : many}`;
