import type { Metadata, Viewport } from "next";
import { headers } from "next/headers";
import { THEME_BOOT_SCRIPT } from "@/lib/client/theme";
import "./globals.css";

export const metadata: Metadata = {
  title: "Sign in with ChatGPT",
  description: "Sign in with your ChatGPT account and use your plan's models from a web app.",
};

export const viewport: Viewport = {
  width: "device-width",
  initialScale: 1,
  // The on-screen keyboard shrinks the layout viewport, so dvh units keep the message box above it.
  interactiveWidget: "resizes-content",
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#fcfcfd" },
    { media: "(prefers-color-scheme: dark)", color: "#16171a" },
  ],
  colorScheme: "light dark",
};

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // The page's CSP nonce (proxy.ts): the theme script runs inline, before the first paint, so the
  // page never flashes the wrong theme. It sets data-theme on <html>, hence suppressHydrationWarning.
  const nonce = (await headers()).get("x-nonce") ?? undefined;
  return (
    <html lang="en" suppressHydrationWarning>
      <head>
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: THEME_BOOT_SCRIPT }} />
      </head>
      <body className="min-h-dvh bg-background font-sans text-foreground antialiased">{children}</body>
    </html>
  );
}
