import type { Metadata } from "next";

// A shared chat is for the people given its link, not for search engines (the X-Robots-Tag header
// says the same: next.config.ts).
export const metadata: Metadata = {
  title: "Shared chat",
  robots: { index: false, follow: false },
};

export default function ShareLayout({ children }: { children: React.ReactNode }) {
  return children;
}
