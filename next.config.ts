import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  reactStrictMode: true,
  // The dev-tools badge sits over the message box's controls on a phone; the demo runs `next dev`.
  devIndicators: false,
};

export default nextConfig;
