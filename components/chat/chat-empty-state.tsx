import { BrandMark } from "../ui/brand-mark";

const EXAMPLES = [
  { title: "Explain", prompt: "Explain how the OAuth device-code flow works, in five short steps." },
  { title: "Write", prompt: "Write a haiku about streaming responses." },
  { title: "Compare", prompt: "Compare server-side sessions and JWTs in a small table." },
  { title: "Code", prompt: "Write a TypeScript function that formats seconds as mm:ss, with two tests." },
];

/** What a new chat shows: a greeting and a few prompts to start from. */
export function ChatEmptyState({ onPick, disabled }: { onPick: (prompt: string) => void; disabled: boolean }) {
  return (
    <div className="flex flex-1 flex-col items-center justify-center px-2 py-10 text-center">
      <BrandMark className="size-10" />
      <h2 className="mt-4 text-2xl font-semibold tracking-tight">What can I help with?</h2>
      <p className="mt-1.5 text-sm text-muted-foreground">Answers use your ChatGPT plan. Pick a prompt or type your own.</p>
      <ul className="mt-8 grid w-full max-w-xl grid-cols-1 gap-2.5 sm:grid-cols-2">
        {EXAMPLES.map((example) => (
          <li key={example.title}>
            <button
              type="button"
              disabled={disabled}
              onClick={() => onPick(example.prompt)}
              className="h-full w-full rounded-xl border border-border bg-card px-4 py-3 text-left transition-colors hover:bg-muted focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring disabled:cursor-not-allowed disabled:opacity-60"
            >
              <span className="block text-[13px] font-semibold text-foreground">{example.title}</span>
              <span className="mt-0.5 block text-[13px] leading-5 text-muted-foreground">{example.prompt}</span>
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
