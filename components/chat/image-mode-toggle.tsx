import { SparkIcon } from "../ui/icons";
import { ToggleChip } from "../ui/toggle-chip";

/** "Make a picture": the next message asks for an image (the image_generation tool); `/image …` does the same once. */
export function ImageModeToggle({ checked, onChange }: { checked: boolean; onChange: (checked: boolean) => void }) {
  return (
    <ToggleChip
      checked={checked}
      onChange={onChange}
      icon={<SparkIcon className="size-3.5" />}
      label="Picture"
      labelClassName="max-[520px]:sr-only"
      ariaLabel="Make a picture"
      title="Make a picture: the next message asks for an image (or start a message with /image)"
      testId="image-toggle"
    />
  );
}
