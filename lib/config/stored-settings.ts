/**
 * The settings an operator changed in the console or with `admin settings set`, as the
 * variables they mirror (docs/configuration.md, "Settings in the console"). lib/settings
 * reads them from the database and hands them here; env.ts and `setting()` read the
 * environment through `settingsSource()`, so every reader sees one value: the
 * environment's when it is set there (it wins), else the stored one, else the default.
 *
 * One copy per process on globalThis: the custom server's bundle and Next's bundles load
 * this module separately, and a value applied by the server's watcher must reach both.
 */
/** Variables by name: process.env, or a test's own. */
export type Environment = Readonly<Record<string, string | undefined>>;

interface StoredState {
  values: Readonly<Record<string, string>>;
  /** Bumped on every change, so each bundle's parsed copy knows when it is stale. */
  version: number;
  merged: { version: number; source: Environment } | null;
  listeners: Set<() => void>;
}

const shared = globalThis as unknown as { __mediahostStoredSettings?: StoredState };
const state = (): StoredState => {
  shared.__mediahostStoredSettings ??= { values: {}, version: 0, merged: null, listeners: new Set() };
  return shared.__mediahostStoredSettings;
};

/** A variable the environment sets: wins over a stored value ("" counts as unset, as everywhere). */
export function setInEnvironment(name: string): boolean {
  return Boolean(process.env[name]?.trim());
}

/** The environment's own value of `name` (trimmed), or undefined when unset or empty. */
export function environmentValue(name: string): string | undefined {
  return process.env[name]?.trim() || undefined;
}

/** The stored values, as last applied. */
export function storedValues(): Readonly<Record<string, string>> {
  return state().values;
}

/** Changes with every applied change; env.ts re-parses when it moves. */
export function storedVersion(): number {
  return state().version;
}

function sameValues(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => b[key] === a[key]);
}

/** Replaces the stored values; true (and the listeners told) when anything changed. */
export function applyStoredValues(values: Readonly<Record<string, string>>): boolean {
  const current = state();
  if (sameValues(current.values, values)) return false;
  current.values = { ...values };
  current.version++;
  current.merged = null;
  for (const listener of current.listeners) listener();
  return true;
}

/** Runs `listener` after every change of the stored values (caches built from them). */
export function onStoredChange(listener: () => void): () => void {
  state().listeners.add(listener);
  return () => state().listeners.delete(listener);
}

/**
 * The environment with the stored values beneath it. With nothing stored (every test that
 * does not store a setting, and an instance configured by environment alone) this is
 * `process.env` itself, so behaviour is exactly the environment's.
 */
export function settingsSource(): Environment {
  const current = state();
  if (Object.keys(current.values).length === 0) return process.env;
  if (current.merged?.version !== current.version) {
    const source: Record<string, string | undefined> = { ...current.values };
    for (const [name, value] of Object.entries(process.env)) if (value?.trim() || !(name in source)) source[name] = value;
    current.merged = { version: current.version, source };
  }
  return current.merged.source;
}

/** Forget the merged copy (tests change process.env, then call resetEnv()). */
export function forgetMergedSource(): void {
  state().merged = null;
}
