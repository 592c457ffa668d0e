/**
 * Settings changed in the console (docs/configuration.md, "Settings in the console"): every
 * reader sees the environment's value when set, else the stored one. On globalThis: Next's
 * bundles load this module separately, and the watcher's value must reach all of them.
 */
export type Environment = Readonly<Record<string, string | undefined>>;

interface StoredState {
  values: Readonly<Record<string, string>>;
  version: number;
  merged: { version: number; source: Environment } | null;
  listeners: Set<() => void>;
}

const shared = globalThis as unknown as { __mediahostStoredSettings?: StoredState };
const state = (): StoredState => {
  shared.__mediahostStoredSettings ??= { values: {}, version: 0, merged: null, listeners: new Set() };
  return shared.__mediahostStoredSettings;
};

/** "" counts as unset, as everywhere. */
export function setInEnvironment(name: string): boolean {
  return Boolean(process.env[name]?.trim());
}

export function environmentValue(name: string): string | undefined {
  return process.env[name]?.trim() || undefined;
}

export function storedValues(): Readonly<Record<string, string>> {
  return state().values;
}

export function storedVersion(): number {
  return state().version;
}

function sameValues(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => b[key] === a[key]);
}

export function applyStoredValues(values: Readonly<Record<string, string>>): boolean {
  const current = state();
  if (sameValues(current.values, values)) return false;
  current.values = { ...values };
  current.version++;
  current.merged = null;
  for (const listener of current.listeners) listener();
  return true;
}

export function onStoredChange(listener: () => void): () => void {
  state().listeners.add(listener);
  return () => state().listeners.delete(listener);
}

/** With nothing stored this is `process.env` itself, so behaviour is exactly the environment's. */
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

export function forgetMergedSource(): void {
  state().merged = null;
}
