import { GlobeIcon } from "../ui/icons";
import { ToggleChip } from "../ui/toggle-chip";

/** "Search the web": while on, each message lets the model search the web (the backend's web_search tool). */
export function WebSearchToggle({ checked, onChange }: { checked: boolean; onChange: (checked: boolean) => void }) {
  return (
    <ToggleChip
      checked={checked}
      onChange={onChange}
      icon={<GlobeIcon className="size-3.5" />}
      label="Search"
      labelClassName="max-[520px]:sr-only"
      ariaLabel="Search the web"
      title="Search the web: the model may look things up online and cite its sources"
      testId="web-search-toggle"
    />
  );
}
