import type { ReactNode } from "react";

/** The centred card the sign-in, sign-up and sign-out pages share. */
export function AuthCard({ title, children, footer }: { title: string; children: ReactNode; footer?: ReactNode }) {
  return (
    <section className="mx-auto w-full max-w-sm space-y-6 py-6 sm:py-10">
      <h1 className="text-2xl font-bold tracking-tight">{title}</h1>
      <div className="rounded-xl border border-zinc-200 p-6 shadow-sm dark:border-zinc-800">{children}</div>
      {footer && <div className="text-center text-sm text-zinc-600 dark:text-zinc-400">{footer}</div>}
    </section>
  );
}
