import { CompactSelect } from "../ui/compact-select";
import type { ModelDetails } from "@/lib/client/provider-proxy";
import { acceptsImages } from "@/lib/client/model-capabilities";
import { SparkIcon } from "../ui/icons";

interface ModelPickerProps {
  models: ModelDetails[];
  value: string;
  onChange: (model: string) => void;
  loading: boolean;
  disabled?: boolean;
}

function optionLabel(model: ModelDetails): string {
  if (model.unavailable) return `${model.displayName} · unavailable: needs a newer client version`;
  return acceptsImages(model) ? model.displayName : `${model.displayName} · text only`;
}

/**
 * The account's models (from GET /models), by name; the first usable one is chosen until the person
 * picks. A model whose catalog entry takes no images is marked "text only". A model the server
 * cannot use yet (gated above its client version) is listed but cannot be chosen, and says why.
 */
export function ModelPicker({ models, value, onChange, loading, disabled }: ModelPickerProps) {
  return (
    <CompactSelect
      id="model-picker"
      label="Model"
      data-testid="model-picker"
      icon={<SparkIcon className="size-3.5" />}
      value={value}
      onChange={(event) => onChange(event.target.value)}
      disabled={disabled || loading || models.length === 0}
      className="min-w-[8.5rem] max-w-[10.5rem] shrink"
    >
      {loading && models.length === 0 && <option value="">Loading models…</option>}
      {!loading && models.length === 0 && <option value="">No models</option>}
      {models.map((model) => (
        <option
          key={model.slug}
          value={model.slug}
          data-accepts-images={acceptsImages(model) ? "true" : "false"}
          disabled={Boolean(model.unavailable)}
          title={model.unavailable?.message}
        >
          {optionLabel(model)}
        </option>
      ))}
    </CompactSelect>
  );
}
