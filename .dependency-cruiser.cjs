/**
 * Dependency rules for lib/ (npm run lint:deps). The folders of lib/ form layers, lowest first: a folder
 * may import its own and lower layers only, never upward. Type-only imports are not counted (they vanish at
 * run time). Pure modules import neither the database nor Next.js.
 */
const LAYERS = [
  "errors",
  "config",
  "system",
  "db",
  "retry",
  "families",
  "analytics",
  "http",
  "audit",
  "queue",
  "family-store",
  "auth",
  "projects",
  "tasks",
  "generations",
  "compare",
  "engineer",
  "arena",
  "annotations",
  "rollouts",
  "annotation-queue",
  "parquet",
  "csv",
  "ingest",
  "review",
  "proposals",
  "dispatch",
  "arena-runs",
  "demo",
  "worker",
  "api",
];
const folder = (name) => `^lib/${name}(/|\\.ts$)`;
const anyOf = (names) => `^lib/(${names.join("|")})(/|\\.ts$)`;

const upward = LAYERS.slice(0, -1).map((name, i) => ({
  name: `no-upward-from-${name}`,
  comment: `lib/${name} sits below ${LAYERS.slice(i + 1).join(", ")}: it may not import them`,
  severity: "error",
  from: { path: folder(name), pathNot: "\\.test\\.ts$" },
  to: { path: anyOf(LAYERS.slice(i + 1)), dependencyTypesNot: ["type-only"] },
}));

module.exports = {
  forbidden: [
    ...upward,
    {
      name: "layers-complete",
      comment: "every folder of lib/ has a place in LAYERS (.dependency-cruiser.cjs)",
      severity: "error",
      from: { path: "^lib/" },
      to: { path: "^lib/", pathNot: anyOf(LAYERS) },
    },
    {
      name: "pure-modules",
      comment: "families, analytics, arena and the engineer's pure steps import neither the database nor Next.js",
      severity: "error",
      from: {
        path: "^lib/(families|analytics|arena)/|^lib/engineer/(scoring|heuristic|llm|validate-items|classification)",
        pathNot: "\\.test\\.ts$",
      },
      to: { path: "^lib/db/|^node_modules/(next|pg|drizzle-orm|pg-boss)/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "queries-in-repositories",
      comment:
        "review, generations, proposals and projects query through their repository files (queries only, selected columns); " +
        "the other modules there keep the rules and import neither drizzle-orm nor the schema's tables (types are fine).",
      severity: "error",
      from: {
        path: "^lib/(review|generations|proposals|projects)/",
        pathNot: "(repository\\.ts|\\.test\\.ts)$",
      },
      to: { path: "^node_modules/drizzle-orm/|^lib/db/schema\\.ts$|^lib/db/tables/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "no-circular",
      severity: "error",
      from: { path: "^lib/", pathNot: "\\.test\\.ts$" },
      to: { circular: true, dependencyTypesNot: ["type-only"] },
    },
    {
      name: "lib-not-into-app",
      comment: "lib/ never imports routes, pages or components",
      severity: "error",
      from: { path: "^lib/" },
      to: { path: "^(app|components)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default"],
      extensions: [".ts", ".tsx", ".js", ".mjs", ".json"],
    },
  },
};
