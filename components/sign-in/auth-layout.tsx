import { BrandMark } from "../ui/brand-mark";

/** The centred, single-card frame of every signed-out screen. */
export function AuthLayout({ children }: { children: React.ReactNode }) {
  return (
    <div className="flex min-h-dvh flex-col">
      <header className="flex items-center gap-2.5 px-5 py-4 sm:px-8">
        <BrandMark className="size-7" />
        <span className="text-[15px] font-semibold tracking-tight">Sign in with ChatGPT</span>
      </header>
      <main className="flex flex-1 items-start justify-center px-4 pb-10 pt-4 sm:items-center sm:pt-0">
        <div className="w-full max-w-[27rem] rounded-2xl border border-border bg-card p-6 shadow-[0_1px_2px_rgb(0_0_0/0.04),0_8px_24px_-12px_rgb(0_0_0/0.12)] sm:p-8">
          {children}
        </div>
      </main>
      <footer className="px-5 pb-5 text-center text-xs text-muted-foreground">
        A reference app. Not affiliated with OpenAI.
      </footer>
    </div>
  );
}
