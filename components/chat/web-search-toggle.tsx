import { GlobeIcon } from "../ui/icons";

/** "Search the web": while on, each message lets the model search the web (the backend's web_search tool). */
export function WebSearchToggle({ checked, onChange }: { checked: boolean; onChange: (checked: boolean) => void }) {
  return (
    <button
      type="button"
      role="switch"
      aria-checked={checked}
      aria-label="Search the web"
      data-testid="web-search-toggle"
      onClick={() => onChange(!checked)}
      title="Search the web: the model may look things up online and cite its sources"
      className={`inline-flex h-8 shrink-0 items-center gap-1.5 rounded-full border px-2.5 text-[13px] font-medium transition-colors focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring ${
        checked ? "border-accent/40 bg-accent-soft text-accent-foreground" : "border-transparent text-muted-foreground hover:bg-muted hover:text-foreground"
      }`}
    >
      <GlobeIcon className="size-3.5" />
      <span className="max-[520px]:sr-only">Search</span>
    </button>
  );
}
