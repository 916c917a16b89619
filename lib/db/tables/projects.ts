/** Environment families (built-in and registered) and projects, each bound to one family. */
import { sql } from "drizzle-orm";
import { boolean, doublePrecision, jsonb, pgTable, serial, text } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";

export const families = pgTable("families", {
  id: text("id").primaryKey(),
  version: text("version").notNull(),
  jsonSchema: jsonb("json_schema").notNull(),
  fields: jsonb("fields").notNull(),
  createdBy: text("created_by"),
  createdAt: createdAt(),
});

export const projects = pgTable("projects", {
  id: serial("id").primaryKey(),
  slug: text("slug").notNull().unique(),
  name: text("name").notNull(),
  familyId: text("family_id").notNull(),
  successThreshold: doublePrecision("success_threshold").notNull().default(1),
  isDemo: boolean("is_demo").notNull().default(false),
  // the demo loop's progress (demo projects only): { status, cycle, cycles, message, at }
  demoState: jsonb("demo_state"),
  settings: jsonb("settings")
    .notNull()
    .default(sql`'{}'::jsonb`),
  createdAt: createdAt(),
});
