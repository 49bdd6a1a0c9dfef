interface ThrottledLatest<T> {
  /** Keeps `value` as the one to run with; starts the interval if none is running. */
  push(value: T): void;
  /** Runs the pending value now (if any) instead of at the end of the interval. */
  flush(): void;
  /** Forgets the pending value. */
  cancel(): void;
}

/**
 * Runs `run` at most once per `intervalMs`, at the end of the interval, with the latest value
 * pushed during it: a value is never older than one interval when it runs.
 */
export function throttleLatest<T>(run: (value: T) => void, intervalMs: number): ThrottledLatest<T> {
  let pending: { value: T } | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;

  const fire = () => {
    timer = null;
    const current = pending;
    pending = null;
    if (current) run(current.value);
  };

  return {
    push(value) {
      pending = { value };
      timer ??= setTimeout(fire, intervalMs);
    },
    flush() {
      if (timer) clearTimeout(timer);
      fire();
    },
    cancel() {
      if (timer) clearTimeout(timer);
      timer = null;
      pending = null;
    },
  };
}
