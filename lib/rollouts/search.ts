/**
 * Search across a project's rollouts: Postgres full-text (websearch syntax, English stemming) over the
 * search documents the database keeps (rollout_search, drizzle/0015_rollout_search.sql), OR a case-insensitive substring
 * match served by the trigram index; snippets say where each hit matched as plain text with offsets.
 */
import { sql, type SQL } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { rollouts, rolloutSearch } from "@/lib/db/schema";

/** Shortest query the trigram index can serve as a substring; shorter ones match words only. */
const MIN_SUBSTRING = 3;
/** Characters around the first match that ts_headline reads (it re-parses what it gets: keep it small). */
const WINDOW = 800;
/** Context shown either side of a substring match. */
const CONTEXT = 80;
const START = "\u0001";
const STOP = "\u0002";
// the two marks above, as a literal so no pattern is built at run time (control characters on purpose: no text holds them)
// eslint-disable-next-line no-control-regex
const MARKS = /([\u0001\u0002])/;

/** Where a hit matched: plain text and [start, end) offsets (UTF-16 code units) of the matched parts. */
export interface SearchSnippet {
  text: string;
  highlights: [number, number][];
}

/** The ILIKE pattern of a substring query, with its wildcards escaped; null when too short for the trigram index. */
export function substringPattern(q: string): string | null {
  return q.length >= MIN_SUBSTRING ? `%${q.replace(/[\\%_]/g, "\\$&")}%` : null;
}

/** The match on rollout_search: its document holds `q` as words or (3+ characters) as a substring. */
export function searchMatch(q: string): SQL {
  const pattern = substringPattern(q);
  const words = sql`${rolloutSearch.tsv} @@ websearch_to_tsquery('english', ${q})`;
  return pattern === null ? words : sql`(${words} or ${rolloutSearch.body} ilike ${pattern})`;
}

/**
 * The search documents of these generations only (ids, not indexes): rollout_search is partitioned by generation
 * (ADR 0008), and a constant list lets the planner read only their partitions and GIN indexes.
 */
export function searchGenerations(generationIds: number[]): SQL {
  return sql`${rolloutSearch.generationId} = any(${sql.param(generationIds)}::int[])`;
}

/**
 * The filter: rollouts of `generationIds` whose search document matches `q` (searchMatch), asked of those generations'
 * GIN indexes; a document counts for the rollout only in the rollout's own generation (the key is the pair).
 */
export function searchCondition(projectId: number, generationIds: number[], q: string): SQL {
  return sql`(${rollouts.id}, ${rollouts.generationId}) in (select ${rolloutSearch.rolloutId}, ${rolloutSearch.generationId}
    from ${rolloutSearch} where ${searchGenerations(generationIds)} and ${rolloutSearch.projectId} = ${projectId} and ${searchMatch(q)})`;
}

/** The literal strings whose first occurrence places a snippet: the query, its words, then their stems (lower case). */
export function snippetAnchors(q: string, lexemes: string[]): string[] {
  const words = q
    .toLowerCase()
    .split(/[^\p{L}\p{N}_]{1,64}/u)
    .filter((w) => w.length >= 2);
  return [...new Set([q.toLowerCase(), ...words, ...lexemes.filter((l) => l.length >= 2)])];
}

/**
 * Snippets of the hits `rolloutIds` (of the generations `generationIds`) for `q`. ts_headline re-parses all the text
 * it gets, so it reads only a window around the first occurrence of an anchor (snippetAnchors); without one, the
 * document's start.
 */
export async function searchSnippets(
  db: Db,
  rolloutIds: number[],
  generationIds: number[],
  q: string,
): Promise<Map<number, SearchSnippet>> {
  const out = new Map<number, SearchSnippet>();
  if (rolloutIds.length === 0) return out;
  const lexemes = await db.execute<{ lexeme: string }>(sql`
    select distinct unnest(tsvector_to_array(to_tsvector('english', ${q}))) as lexeme`);
  const anchors = snippetAnchors(
    q,
    lexemes.rows.map((r) => r.lexeme),
  );
  const options = `StartSel="${START}", StopSel="${STOP}", MaxWords=24, MinWords=8, MaxFragments=2, FragmentDelimiter=" … "`;
  const result = await db.execute<{ rollout_id: string; headline: string | null; around: string }>(sql`
    with d as (select s.rollout_id, s.body, lower(s.body) as lowered from rollout_search s
      where s.generation_id = any(${sql.param(generationIds)}::int[]) and s.rollout_id = any(${sql.param(rolloutIds)}::bigint[])),
    w as (
      select d.rollout_id, substr(d.body, greatest(coalesce(a.at, 1) - ${WINDOW / 2}, 1), ${WINDOW}) as around
      from d left join lateral (
        select strpos(d.lowered, u.anchor) as at from unnest(${sql.param(anchors)}::text[]) with ordinality as u(anchor, o)
        where strpos(d.lowered, u.anchor) > 0 order by u.o limit 1) a on true)
    select rollout_id, around,
      case when to_tsvector('english', around) @@ websearch_to_tsquery('english', ${q})
        then ts_headline('english', around, websearch_to_tsquery('english', ${q}), ${options}) end as headline
    from w`);
  for (const row of result.rows) out.set(Number(row.rollout_id), snippetOf(row.headline, row.around, q));
  return out;
}

/** A snippet from ts_headline's marked text when it marked something, else the text around a substring match, else the window's start. */
export function snippetOf(headline: string | null, around: string, q: string): SearchSnippet {
  if (headline && headline.includes(START)) return parseMarked(headline);
  const text = collapse(around);
  const needle = collapse(q).toLowerCase();
  const at = text.toLowerCase().indexOf(needle);
  if (at < 0) return { text: text.slice(0, 2 * CONTEXT), highlights: [] };
  const from = Math.max(0, at - CONTEXT);
  return { text: text.slice(from, at + needle.length + CONTEXT), highlights: [[at - from, at - from + needle.length]] };
}

/** Text with START/STOP marks -> plain text and highlight offsets (whitespace runs collapsed to one space). */
export function parseMarked(marked: string): SearchSnippet {
  let text = "";
  const highlights: [number, number][] = [];
  let open = -1;
  for (const part of collapse(marked).split(MARKS)) {
    if (part === START) open = text.length;
    else if (part === STOP) {
      if (open >= 0 && text.length > open) highlights.push([open, text.length]);
      open = -1;
    } else text += part;
  }
  return { text, highlights };
}

function collapse(s: string): string {
  return s.replace(/\s{1,256}/g, " ");
}
