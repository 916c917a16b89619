/** Project-defined labels, annotations on rollouts and turns, and explorer views saved per user. */
import { bigint, bigserial, doublePrecision, index, integer, pgTable, serial, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { projects } from "./projects";
import { rollouts } from "./rollouts";

export const labels = pgTable(
  "labels",
  {
    id: serial("id").primaryKey(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    createdBy: text("created_by").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("labels_project_name_uq").on(t.projectId, t.name)],
);

export const annotations = pgTable(
  "annotations",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    rolloutId: bigint("rollout_id", { mode: "number" })
      .notNull()
      .references(() => rollouts.id, { onDelete: "cascade" }),
    labelId: integer("label_id").references(() => labels.id, { onDelete: "restrict" }),
    score: doublePrecision("score"),
    note: text("note"),
    /** the trajectory message the annotation is about; null for the whole rollout */
    turn: integer("turn"),
    actor: text("actor").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("annotations_rollout_idx").on(t.rolloutId, t.id), index("annotations_label_idx").on(t.labelId, t.rolloutId)],
);

/**
 * The annotation queue's locks: one reviewer holds a rollout until `expires_at` (renewed while they are on it);
 * a lock past its expiry is free to take (lib/annotations/locks.ts takes it atomically).
 */
export const annotationLocks = pgTable(
  "annotation_locks",
  {
    rolloutId: bigint("rollout_id", { mode: "number" })
      .primaryKey()
      .references(() => rollouts.id, { onDelete: "cascade" }),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    /** the principal's actor name (user:<email> or key:<name>) */
    owner: text("owner").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("annotation_locks_project_idx").on(t.projectId, t.expiresAt)],
);

/** A user's named explorer filter in one project: the query string of the explorer's URL. */
export const savedViews = pgTable(
  "saved_views",
  {
    id: serial("id").primaryKey(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    /** the principal's actor name (user:<email> or key:<name>): views are private to it */
    owner: text("owner").notNull(),
    name: text("name").notNull(),
    query: text("query").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("saved_views_owner_name_uq").on(t.projectId, t.owner, t.name)],
);
