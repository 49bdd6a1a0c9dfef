import type { Metadata, Viewport } from "next";
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

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-dvh bg-background font-sans text-foreground antialiased">{children}</body>
    </html>
  );
}
