/** Column types and defaults every table module shares. */
import { customType, timestamp } from "drizzle-orm/pg-core";

/** Raw bytes (content-addressed files). */
export const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => "bytea" });
/** A full-text search document. */
export const tsvector = customType<{ data: string }>({ dataType: () => "tsvector" });

/** `created_at`, set by the database. */
export const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();
