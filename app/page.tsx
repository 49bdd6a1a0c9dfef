import { ProviderApp } from "@/components/provider-app";

export default function Home() {
  return <ProviderApp />;
}
