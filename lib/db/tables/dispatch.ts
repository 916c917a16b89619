/** Dispatch targets, dispatches and their status timeline. */
import { bigserial, index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { generations } from "./environments";
import { projects } from "./projects";

export const dispatchTargets = pgTable(
  "dispatch_targets",
  {
    id: serial("id").primaryKey(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    kind: text("kind").notNull(), // sandbox | trainer
    adapter: text("adapter").notNull(), // local | webhook | ray | kubernetes | export
    config: jsonb("config").notNull(),
    // AES-256-GCM ciphertext of the target's secrets (ENVFORGE_SECRET_KEY); never returned by the API
    secretCiphertext: text("secret_ciphertext"),
    // or the NAME of an environment variable holding the secret (never its value)
    secretEnv: text("secret_env"),
    maxAttempts: integer("max_attempts").notNull().default(5),
    createdBy: text("created_by"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("dispatch_targets_project_name_uq").on(t.projectId, t.name)],
);

export const dispatches = pgTable(
  "dispatches",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    generationId: integer("generation_id")
      .notNull()
      .references(() => generations.id, { onDelete: "cascade" }),
    targetId: integer("target_id")
      .notNull()
      .references(() => dispatchTargets.id, { onDelete: "cascade" }),
    status: text("status").notNull().default("queued"),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    externalId: text("external_id"),
    // which run of the dispatch is (or was last) at the target: 1, and one more per retry; part of the
    // Ray submission_id and Kubernetes Job name from run 2 on, so a retry starts a job of its own
    run: integer("run").notNull().default(1),
    // the generation as delivered, frozen when the dispatch was created
    payload: jsonb("payload"),
    // the dispatch-scoped ingest key, encrypted with ENVFORGE_SECRET_KEY (every attempt sends the same key)
    callbackKeyCiphertext: text("callback_key_ciphertext"),
    // a worker holds the dispatch while it sends; another may take it over once the lease ran out
    leaseOwner: text("lease_owner"),
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }),
    createdBy: text("created_by"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("dispatches_project_idx").on(t.projectId, t.createdAt)],
);

export const dispatchEvents = pgTable(
  "dispatch_events",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    dispatchId: uuid("dispatch_id")
      .notNull()
      .references(() => dispatches.id, { onDelete: "cascade" }),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
    status: text("status").notNull(),
    message: text("message"),
    data: jsonb("data"),
  },
  (t) => [index("dispatch_events_dispatch_idx").on(t.dispatchId, t.at)],
);
