/**
 * A column named with its table (`"environments"."parent_id"`), for a correlated subquery inside a select list.
 * Drizzle writes the columns of a single-table select list without their table, so `${environments.parentId}` inside
 * `(select p.key from environments p where p.id = ${environments.parentId})` became `"parent_id"`, which Postgres
 * binds to the subquery's own `p.parent_id`: the correlation was silently lost (issue 19 found three such reads).
 */
import { getTableName, sql, type Column, type SQL } from "drizzle-orm";

export function qualified(column: Column): SQL {
  return sql`${sql.identifier(getTableName(column.table))}.${sql.identifier(column.name)}`;
}
