/**
 * `next/navigation` in the dashboard's own bundle (docs/dashboard-scripts.md): the page was a
 * full load, so the address is the browser's and every navigation is a full one too.
 */
import { useState } from "react";

export function useSearchParams(): URLSearchParams {
  const [params] = useState(() => new URLSearchParams(window.location.search));
  return params;
}

export function usePathname(): string {
  return window.location.pathname;
}

export function useRouter() {
  return {
    push: (href: string) => window.location.assign(href),
    replace: (href: string) => window.location.replace(href),
    refresh: () => window.location.reload(),
    back: () => window.history.back(),
    forward: () => window.history.forward(),
    prefetch: () => {},
  };
}
