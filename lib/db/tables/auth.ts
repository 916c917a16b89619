/** Accounts, sign-in attempts, browser sessions and API keys (hashed; a key may be limited to one project or one dispatch). */
import { bigserial, index, integer, pgTable, serial, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { projects } from "./projects";

export const users = pgTable("users", {
  id: serial("id").primaryKey(),
  email: text("email").notNull().unique(),
  name: text("name").notNull(),
  passwordHash: text("password_hash").notNull(),
  role: text("role").notNull(), // admin | reviewer | ingest | viewer
  // set by an admin: the account cannot sign in and its sessions are gone
  disabledAt: timestamp("disabled_at", { withTimezone: true }),
  createdAt: createdAt(),
});

// failed (and in-flight) sign-ins, kept in the database so the limit holds across processes
export const signinAttempts = pgTable(
  "signin_attempts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    email: text("email").notNull(),
    address: text("address").notNull(),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("signin_attempts_email_idx").on(t.email, t.at), index("signin_attempts_address_idx").on(t.address, t.at)],
);

export const sessions = pgTable(
  "sessions",
  {
    // sha256 of the cookie token: a stolen database does not give live sessions
    id: text("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("sessions_user_idx").on(t.userId)],
);

export const apiKeys = pgTable(
  "api_keys",
  {
    id: serial("id").primaryKey(),
    name: text("name").notNull(),
    role: text("role").notNull(),
    projectId: integer("project_id").references(() => projects.id, { onDelete: "cascade" }),
    keyHash: text("key_hash").notNull().unique(),
    prefix: text("prefix").notNull(),
    createdBy: text("created_by"),
    createdAt: createdAt(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    // a dispatch-scoped key: minted for one dispatch, limited to its generation, revoked when it ends
    dispatchId: uuid("dispatch_id"),
    generationIndex: integer("generation_index"),
  },
  (t) => [index("api_keys_role_idx").on(t.role), index("api_keys_dispatch_idx").on(t.dispatchId)],
);
