/**
 * Drizzle schema: every concept of PRODUCT.md as a table, one module a domain under lib/db/tables/.
 * Migrations in drizzle/ are generated from what this file exports (drizzle.config.ts).
 */
export * from "./tables/auth";
export * from "./tables/projects";
export * from "./tables/environments";
export * from "./tables/rollouts";
export * from "./tables/aggregates";
export * from "./tables/proposals";
export * from "./tables/dispatch";
export * from "./tables/audit";
export * from "./tables/annotations";
export * from "./tables/arena";
