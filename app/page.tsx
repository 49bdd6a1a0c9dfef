export default function Home() {
  return <main className="p-8">Sign in with ChatGPT</main>;
}
