/**
 * A long trajectory written as it is produced, page by page (ADR 0006): its JSON is made one page of
 * TRAJECTORY_PAGE_MESSAGES messages at a time and sent in statements of a few megabytes, and Postgres
 * assembles the whole document from the pages. Node never holds the JSON text of a 100 MB trajectory,
 * nor the escaped text[] literal and wire buffers that sending it as one parameter took (about 0.8 GB
 * of a 1.5 GB RSS peak for a 116 MB line).
 */
import { sql } from "drizzle-orm";
import type { Queryable } from "@/lib/db/client";
import { TRAJECTORY_PAGE_MESSAGES } from "@/lib/db/schema";

/** Trajectories longer than this (characters of JSON) are also stored in pages (trajectory_pages). */
export const PAGED_TRAJECTORY_MIN_CHARS = 1_000_000;

/** Most characters of page JSON sent in one statement. */
const PAGES_PER_STATEMENT_CHARS = 4_000_000;

/** A trajectory's JSON: whole when it is short, else only its pages' JSON (each an array of up to `pageSize` messages). */
export type TrajectoryJson = { whole: string } | { pages: string[] };

/**
 * The JSON of a trajectory, made page by page: a short one (at most `minChars` characters of JSON, the
 * length the whole JSON.stringify gives) comes back whole, a long one as its pages only.
 */
export function trajectoryJson(
  trajectory: readonly unknown[],
  pageSize = TRAJECTORY_PAGE_MESSAGES,
  minChars = PAGED_TRAJECTORY_MIN_CHARS,
): TrajectoryJson {
  if (trajectory.length <= pageSize) {
    const whole = JSON.stringify(trajectory);
    return whole.length > minChars ? { pages: [whole] } : { whole };
  }
  const pages: string[] = [];
  let chars = 1; // "[" + pages' inner text joined by "," + "]": the pages' lengths, less one bracket pair each, plus one separator between
  for (let from = 0; from < trajectory.length; from += pageSize) {
    const page = JSON.stringify(trajectory.slice(from, from + pageSize));
    pages.push(page);
    chars += page.length - 1;
  }
  if (chars > minChars) return { pages };
  return { whole: `[${pages.map((p) => p.slice(1, -1)).join(",")}]` };
}

/**
 * Write one rollout's trajectory pages (JSON arrays of `pageSize` messages, the last one shorter) with
 * each page's timed steps, then its whole trajectory in rollout_payloads from those pages. The payload
 * row must exist (written with a null trajectory in the same transaction).
 */
export async function storeTrajectoryPages(
  db: Queryable,
  rolloutId: number,
  pages: string[],
  pageSize = TRAJECTORY_PAGE_MESSAGES,
): Promise<void> {
  for (let first = 0; first < pages.length;) {
    let end = first;
    let chars = 0;
    while (end < pages.length && (end === first || chars + pages[end].length <= PAGES_PER_STATEMENT_CHARS)) chars += pages[end++].length;
    const numbers = Array.from({ length: end - first }, (_, i) => first + i);
    // the same pages and steps as envforge_page_trajectories (drizzle/0020_trajectory_pages.sql) makes from a whole document
    await db.execute(sql`
      insert into trajectory_pages (rollout_id, page, message_count, messages, steps)
      select ${rolloutId}, t.page, jsonb_array_length(t.m), t.m,
        coalesce((select jsonb_agg(jsonb_build_object('i', t.page * ${pageSize} + e.ord - 1, 'role', e.m -> 'role', 'at', e.m -> 'timestamp',
                                                      'usage', e.m -> 'usage') order by e.ord)
                  from jsonb_array_elements(t.m) with ordinality as e(m, ord) where e.m ? 'timestamp' or e.m ? 'usage'), '[]'::jsonb)
      from (select p.page, p.txt::jsonb as m from unnest(${sql.param(numbers)}::int[], ${sql.param(pages.slice(first, end))}::text[]) as p(page, txt)) t`);
    first = end;
  }
  await db.execute(sql`
    update rollout_payloads set trajectory = (
      select jsonb_agg(e.m order by tp.page, e.ord)
      from trajectory_pages tp cross join lateral jsonb_array_elements(tp.messages) with ordinality as e(m, ord)
      where tp.rollout_id = ${rolloutId})
    where rollout_id = ${rolloutId}`);
}
