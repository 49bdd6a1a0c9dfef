/** A part of the page whose code is downloaded only when it is first used (`import()`). */
export interface OnDemand<T> {
  /** Starts the download, or joins the one under way; resolves with the loaded module. */
  load(): Promise<T>;
  /** The module once loaded, else undefined (a screen that has it renders it at once). */
  loaded(): T | undefined;
  /** Calls `listener` once the module has loaded (for every screen waiting on it); returns the way to stop. */
  subscribe(listener: () => void): () => void;
}

/**
 * Wraps an `import()` so the page downloads it once, however many places ask for it; a failed
 * download is forgotten, so the next `load()` tries again (a dropped connection is not final).
 */
export function onDemand<T>(load: () => Promise<T>): OnDemand<T> {
  let pending: Promise<T> | undefined;
  let loadedModule: T | undefined;
  const listeners = new Set<() => void>();
  return {
    load() {
      pending ??= load().then(
        (loaded) => {
          loadedModule = loaded;
          for (const listener of listeners) listener();
          return loaded;
        },
        (error: unknown) => {
          pending = undefined;
          throw error;
        },
      );
      return pending;
    },
    loaded: () => loadedModule,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
