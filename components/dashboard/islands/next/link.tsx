/** `next/link` in the dashboard's own bundle (docs/dashboard-scripts.md): a plain link, a full navigation. */
import type { AnchorHTMLAttributes } from "react";

type LinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, "href"> & {
  href: string | URL;
  prefetch?: boolean | null;
  replace?: boolean;
  scroll?: boolean;
};

export default function Link({ href, prefetch: _prefetch, replace: _replace, scroll: _scroll, ...rest }: LinkProps) {
  return <a href={String(href)} {...rest} />;
}
