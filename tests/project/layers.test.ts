/**
 * The layer rule of docs/architecture.md: no module imports a layer above its own, and
 * every source file sits in a layer. `node scripts/check-layers.mjs` prints the same.
 */
import { describe, expect, it } from "vitest";
import { layerOf, upwardImports } from "../../scripts/check-layers.mjs";

type Layer = { name: string; rank: number } | null;
const layer = (file: string): Layer => (layerOf as (f: string) => Layer)(file);

describe("layers", () => {
  it("no import runs upward, and every file has a layer", () => {
    const { problems } = (upwardImports as () => { problems: string[] })();
    expect(problems).toEqual([]);
  });

  it("places the layers in the documented order (a lower rank is a higher layer)", () => {
    const order = [
      "app/page.tsx",
      "lib/routes/table.ts",
      "lib/http/dispatch.ts",
      "lib/uploads/upload.ts",
      "lib/presenters/post-views.ts",
      "lib/posts/read.ts",
      "lib/db/client.ts",
      "lib/config/env.ts",
      "lib/errors.ts",
    ];
    const ranks = order.map((file) => layer(file)?.rank);
    expect(ranks.every((rank) => typeof rank === "number")).toBe(true);
    expect([...ranks].sort((a, b) => a! - b!)).toEqual(ranks);
    expect(new Set(ranks).size).toBe(order.length);
  });

  it("knows no layer for a folder nobody placed", () => {
    expect(layer("lib/somewhere-new/thing.ts")).toBeNull();
  });
});
