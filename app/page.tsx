import { connection } from "next/server";
import { ProviderApp } from "@/components/provider-app";
import { modelAccessEnabled, webSearchEnabled } from "@/lib/provider-app";

export default async function Home() {
  // Rendered per request: the CSP nonce (proxy.ts) is new on every page load.
  await connection();
  return <ProviderApp modelAccess={modelAccessEnabled} webSearch={webSearchEnabled} />;
}
