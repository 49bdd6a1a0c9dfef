export default function Home() {
  return (
    <main className="flex min-h-screen flex-col items-center justify-center gap-4 p-8">
      <h1 className="text-2xl font-semibold">An existing app</h1>
      <p>Get started by editing app/page.tsx.</p>
    </main>
  );
}
