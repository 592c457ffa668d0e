/**
 * `next/dynamic` in the dashboard's own bundle (docs/dashboard-scripts.md): React.lazy, loaded
 * when first rendered (a chunk of its own), nothing in the meantime.
 */
import { type ComponentType, lazy, Suspense } from "react";

type Loaded<P> = ComponentType<P> | { default: ComponentType<P> };

export default function dynamic<P extends object>(load: () => Promise<Loaded<P>>, _options?: { ssr?: boolean }): ComponentType<P> {
  const Lazy = lazy(async () => {
    const loaded = await load();
    return { default: "default" in loaded ? loaded.default : loaded };
  });
  // One component per dynamic() call at module level, as with Next's: made once, never per render.
  // biome-ignore lint/correctness/noComponentHookFactories: dynamic() is called once per module, outside any component
  return function Dynamic(props: P) {
    return (
      <Suspense fallback={null}>
        <Lazy {...props} />
      </Suspense>
    );
  };
}
