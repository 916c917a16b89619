/** Environments (immutable configs with lineage), their content-addressed task files, generations and their membership, policies. */
import {
  bigint,
  bigserial,
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  text,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { bytea, createdAt } from "./columns";
import { projects } from "./projects";

export const environments = pgTable(
  "environments",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    config: jsonb("config").notNull(),
    configHash: text("config_hash").notNull(),
    parentId: bigint("parent_id", { mode: "number" }),
    op: text("op").notNull().default("seed"), // seed | keep | mutate | add | crossover | import
    direction: text("direction"),
    validationState: text("validation_state").notNull().default("unvalidated"),
    pMax: doublePrecision("p_max"),
    validationDetails: jsonb("validation_details"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("environments_project_key_uq").on(t.projectId, t.key),
    index("environments_project_hash_idx").on(t.projectId, t.configHash),
    index("environments_parent_idx").on(t.parentId),
  ],
);

/** File contents by sha256, shared by every task file (across tasks, generations and projects) with these bytes. */
export const blobs = pgTable("blobs", {
  sha256: text("sha256").primaryKey(),
  size: bigint("size", { mode: "number" }).notNull(),
  data: bytea("data").notNull(),
  createdAt: createdAt(),
});

/** The files of a Harbor task environment (task.toml, instruction.md, environment/, tests/, solution/, steps/). */
export const environmentFiles = pgTable(
  "environment_files",
  {
    environmentId: bigint("environment_id", { mode: "number" })
      .notNull()
      .references(() => environments.id, { onDelete: "cascade" }),
    path: text("path").notNull(),
    sha256: text("sha256")
      .notNull()
      .references(() => blobs.sha256),
    size: bigint("size", { mode: "number" }).notNull(),
    executable: boolean("executable").notNull().default(false),
  },
  (t) => [primaryKey({ columns: [t.environmentId, t.path] }), index("environment_files_sha_idx").on(t.sha256)],
);

export const generations = pgTable(
  "generations",
  {
    id: serial("id").primaryKey(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    index: integer("index").notNull(),
    // draft | active | approved | materialized | archived
    status: text("status").notNull().default("active"),
    source: text("source").notNull().default("seed"), // seed | import | proposal
    parentIndex: integer("parent_index"),
    proposalId: uuid("proposal_id"),
    trainingSteps: integer("training_steps"),
    mixWeight: doublePrecision("mix_weight"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("generations_project_index_uq").on(t.projectId, t.index)],
);

export const generationEnvironments = pgTable(
  "generation_environments",
  {
    generationId: integer("generation_id")
      .notNull()
      .references(() => generations.id, { onDelete: "cascade" }),
    environmentId: bigint("environment_id", { mode: "number" })
      .notNull()
      .references(() => environments.id, { onDelete: "cascade" }),
    weight: doublePrecision("weight").notNull().default(1),
    op: text("op").notNull().default("seed"),
    direction: text("direction"),
    rationale: text("rationale"),
  },
  (t) => [primaryKey({ columns: [t.generationId, t.environmentId] }), index("generation_environments_env_idx").on(t.environmentId)],
);

export const policies = pgTable(
  "policies",
  {
    id: serial("id").primaryKey(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    step: integer("step"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("policies_project_name_uq").on(t.projectId, t.name)],
);
