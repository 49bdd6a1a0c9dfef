/** A part of the page on its way: a spinner (still when reduced motion is preferred) and "Loading…". */
export function LoadingStatus({ className = "py-16" }: { className?: string }) {
  return (
    <div role="status" className={`flex items-center justify-center gap-3 text-sm text-muted-foreground ${className}`}>
      <span aria-hidden="true" className="size-4 animate-spin rounded-full border-2 border-border border-t-foreground motion-reduce:animate-none" />
      Loading…
    </div>
  );
}
