/**
 * A client component root that the dashboard's own bundle hydrates on a full page load
 * (docs/dashboard-scripts.md): its HTML in `<div data-island>`, its props beside it as JSON.
 * Next's RSC payload, which carries the props otherwise, is cut from such a page by the server
 * (lib/server/dashboard-islands.ts); a client navigation (an RSC request) needs no JSON copy.
 */
import { headers } from "next/headers";
import type { ReactNode } from "react";
import { ISLAND_ATTRIBUTE, ISLAND_PROPS_ATTRIBUTE, type IslandName } from "./islands/names";

/** JSON that cannot end its `<script>` early: every `<` escaped. */
export const scriptJson = (value: unknown): string => JSON.stringify(value).replace(/</g, "\\u003c");

export async function Island({ name, props, children }: { name: IslandName; props: object; children: ReactNode }) {
  const clientNavigation = (await headers()).has("rsc");
  return (
    <>
      <div {...{ [ISLAND_ATTRIBUTE]: name }}>{children}</div>
      {!clientNavigation && (
        // biome-ignore lint/security/noDangerouslySetInnerHtml: JSON with every `<` escaped (scriptJson), a data block the browser never runs
        <script type="application/json" {...{ [ISLAND_PROPS_ATTRIBUTE]: name }} dangerouslySetInnerHTML={{ __html: scriptJson(props) }} />
      )}
    </>
  );
}
