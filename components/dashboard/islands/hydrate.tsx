/**
 * Hydrates one island of the page (components/dashboard/island.tsx) with its props from the
 * HTML, under the dashboard's providers: its own root, so its ids must not come from useId
 * (fieldIds in components/field.tsx).
 */
import { type ReactNode, startTransition, useEffect } from "react";
import { hydrateRoot } from "react-dom/client";
import { DashboardProviders } from "@/components/dashboard/providers";
import { ISLAND_ATTRIBUTE, ISLAND_PROPS_ATTRIBUTE, type IslandName } from "./names";

/** `<html data-island-hydrated>` once the island's first commit ran: tests wait for it. */
function Hydrated() {
  useEffect(() => {
    document.documentElement.dataset.islandHydrated = "";
  }, []);
  return null;
}

export function hydrateIsland<P>(name: IslandName, render: (props: P) => ReactNode): void {
  const container = document.querySelector(`[${ISLAND_ATTRIBUTE}="${name}"]`);
  const data = document.querySelector(`script[${ISLAND_PROPS_ATTRIBUTE}="${name}"]`);
  if (!container || !data?.textContent) return;
  const props = JSON.parse(data.textContent) as P;
  // In a transition, as Next hydrates its root: the work yields to the browser every few
  // milliseconds instead of one long task (Lighthouse's total blocking time), and an input
  // before it ends hydrates its part first.
  startTransition(() => {
    hydrateRoot(
      container,
      <DashboardProviders>
        {render(props)}
        <Hydrated />
      </DashboardProviders>,
    );
  });
}
