import { BrandMark } from "@/components/ui/brand-mark";

/** An unknown or revoked share link (the server does not say which). */
export default function ShareNotFound() {
  return (
    <main className="mx-auto flex min-h-dvh w-full max-w-3xl flex-col gap-4 px-4 py-6 sm:px-6">
      <BrandMark className="size-7" />
      <h1 className="text-lg font-semibold">This shared chat isn&apos;t available</h1>
      <p data-testid="share-not-found" className="text-sm text-muted-foreground">
        Its link was revoked by the person who shared it, or never existed.
      </p>
    </main>
  );
}
