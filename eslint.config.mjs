// ESLint flat config: typescript-eslint, the Next.js plugin and React hooks; formatting is Prettier's.
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import nextPlugin from "@next/eslint-plugin-next";
import reactHooks from "eslint-plugin-react-hooks";
import prettier from "eslint-config-prettier";
import globals from "globals";

export default tseslint.config(
  {
    ignores: [
      "node_modules/",
      ".next/",
      ".envforge/",
      "test-results/",
      "playwright-report/",
      "drizzle/",
      "next-env.d.ts",
      "reports/",
      ".stryker-tmp/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    plugins: { "@next/next": nextPlugin, "react-hooks": reactHooks },
    rules: {
      ...nextPlugin.configs.recommended.rules,
      ...nextPlugin.configs["core-web-vitals"].rules,
      ...reactHooks.configs.recommended.rules,
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
  {
    // settings come from one validated object (lib/config); scripts, tests and benches set up processes and may touch the environment
    files: ["lib/**/*.{ts,tsx}", "app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}", "cli/**/*.ts"],
    ignores: ["lib/config/**", "**/*.test.ts"],
    rules: {
      "no-restricted-properties": [
        "error",
        { object: "process", property: "env", message: "Read settings through lib/config (one validated config object)." },
      ],
    },
  },
  {
    // tests read parsed JSON responses freely
    files: ["**/*.test.ts", "tests/**/*.ts", "e2e/**/*.ts", "bench/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  prettier,
  // after prettier, which turns max-len off: prettier wraps code at 140, this catches the strings and comments it leaves whole
  { rules: { "max-len": ["error", { code: 160, tabWidth: 2, ignoreUrls: true }] } },
);
