/** The dashboard's islands (docs/dashboard-scripts.md): one bundle entry each, named so in the build's manifest. */
export const ISLAND_NAMES = ["gallery", "settings"] as const;
export type IslandName = (typeof ISLAND_NAMES)[number];

/** On the element whose children are the island's HTML. */
export const ISLAND_ATTRIBUTE = "data-island";
/** On the `<script type="application/json">` holding its props. */
export const ISLAND_PROPS_ATTRIBUTE = "data-island-props";
