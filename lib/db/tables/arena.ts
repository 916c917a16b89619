/** Curriculum arena runs run by the worker, with their reports. */
import { sql } from "drizzle-orm";
import { index, jsonb, pgTable, serial, text, timestamp } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";

export const arenaRuns = pgTable(
  "arena_runs",
  {
    id: serial("id").primaryKey(),
    // queued | running | succeeded | failed; an uploaded report is succeeded at once
    status: text("status").notNull().default("queued"),
    options: jsonb("options")
      .notNull()
      .default(sql`'{}'::jsonb`),
    progress: jsonb("progress"),
    report: jsonb("report"),
    error: text("error"),
    createdBy: text("created_by"),
    createdAt: createdAt(),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (t) => [index("arena_runs_created_idx").on(t.createdAt)],
);
