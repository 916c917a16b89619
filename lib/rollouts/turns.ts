/**
 * Trajectory reads for the viewer: pages of cut-down messages, one message in slices, and search.
 * The trajectory stays in Postgres; only the requested messages leave it, so a 10 MB trajectory
 * is never sent or rendered whole. A long one (trajectory_pages) is read by the pages holding the
 * asked-for messages, so a 100 MB document is never decompressed to show a screen of it.
 */
import { eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { rolloutPayloads, rollouts, TRAJECTORY_PAGE_MESSAGES, trajectoryPages } from "@/lib/db/schema";
import { NotFound, parseOrThrow } from "@/lib/errors";
import type { Principal } from "@/lib/auth/principal";
import { requireScope } from "@/lib/auth/principal";
import type { DocumentOutline, TurnOutline, TurnPage, TurnSearchResult, TurnSlice } from "./turn-types";
import { splitReasoning } from "./reasoning";

const ARG_PREVIEW = 240;
const DOC_PREVIEW = 240;
const REASONING_MAX = 200_000;

export const turnPageQuery = z.object({
  from: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(200),
  preview: z.coerce.number().int().min(0).max(20_000).default(600),
});

export const turnSliceQuery = z.object({
  offset: z.coerce.number().int().min(0).default(0),
  length: z.coerce.number().int().min(1).max(200_000).default(20_000),
});

export const turnSearchQuery = z.object({
  q: z.string().trim().min(1, "is required").max(200, "is longer than 200 characters"),
  limit: z.coerce.number().int().min(1).max(1000).default(200),
});

/** Check the rollout exists and the caller may read its project; returns the project id. */
async function authorize(db: Db, rolloutId: number, principal: Principal): Promise<number> {
  const [row] = await db.select({ projectId: rollouts.projectId }).from(rollouts).where(eq(rollouts.id, rolloutId));
  if (!row) throw new NotFound(`Rollout ${rolloutId} does not exist.`);
  requireScope(principal, "projects:read", row.projectId);
  return row.projectId;
}

type RawMessage = {
  role?: string;
  content?: string;
  toolCalls?: { id: string; name: string; arguments: string }[];
  toolCallId?: string;
  retrievedDocuments?: { id?: string; title?: string; text?: string; url?: string; relevant?: boolean }[];
  tokens?: number;
  reasoning?: string;
  copiedContext?: boolean;
  sidechain?: { agentId?: string };
};

function cut(s: string | undefined, n: number): string {
  if (!s) return "";
  return s.length <= n ? s : s.slice(0, n);
}

/** The list form of one message: every string cut to a preview. */
export function outlineMessage(m: RawMessage, index: number, preview: number): TurnOutline {
  const { content, reasoning } = splitReasoning(typeof m.content === "string" ? m.content : "", m.reasoning);
  const documents: DocumentOutline[] = (m.retrievedDocuments ?? []).map((d) => ({
    id: d.id,
    title: d.title,
    url: d.url,
    relevant: d.relevant,
    textPreview: cut(d.text, DOC_PREVIEW),
    textLength: d.text?.length ?? 0,
  }));
  return {
    index,
    role: m.role ?? "unknown",
    length: content.length,
    preview: cut(content, preview),
    ...(reasoning ? { reasoningPreview: cut(reasoning, preview), reasoningLength: reasoning.length } : {}),
    toolCalls: (m.toolCalls ?? []).map((c) => ({
      id: c.id,
      name: c.name,
      argumentsPreview: cut(c.arguments, ARG_PREVIEW),
      argumentsLength: c.arguments?.length ?? 0,
    })),
    ...(m.toolCallId ? { toolCallId: m.toolCallId } : {}),
    documents,
    ...(typeof m.tokens === "number" ? { tokens: m.tokens } : {}),
    ...(m.copiedContext === true ? { copiedContext: true } : {}),
    ...(m.sidechain ? { sidechain: typeof m.sidechain.agentId === "string" ? { agentId: m.sidechain.agentId } : {} } : {}),
  };
}

/** Messages from..from+limit of a rollout's trajectory, cut for the list, with the total count. */
export async function turnPage(db: Db, rolloutId: number, query: unknown, principal: Principal): Promise<TurnPage> {
  const q = parseOrThrow(turnPageQuery, query, "query", 400);
  await authorize(db, rolloutId, principal);
  return readTurnPage(db, rolloutId, q.from, q.limit, q.preview);
}

/** The message count of a trajectory stored in pages (trajectory_pages), or null when it is stored whole only. */
export async function pagedMessageCount(db: Db, rolloutId: number): Promise<number | null> {
  const result = await db.execute<{ total: number }>(sql`
    select (${trajectoryPages.page} * ${TRAJECTORY_PAGE_MESSAGES} + ${trajectoryPages.messageCount})::int as total
    from ${trajectoryPages} where ${trajectoryPages.rolloutId} = ${rolloutId}
    order by ${trajectoryPages.page} desc limit 1`);
  return result.rows[0]?.total ?? null;
}

/** Messages from..from+limit of a paged trajectory: only the pages holding them are read. */
async function pagedMessages(db: Db, rolloutId: number, from: number, limit: number): Promise<{ idx: number; m: RawMessage }[]> {
  const result = await db.execute<{ idx: number; m: RawMessage }>(sql`
    select (tp.page * ${TRAJECTORY_PAGE_MESSAGES} + e.ord - 1)::int as idx, e.m
    from ${trajectoryPages} tp cross join lateral jsonb_array_elements(tp.messages) with ordinality as e(m, ord)
    where tp.rollout_id = ${rolloutId}
      and tp.page between ${Math.floor(from / TRAJECTORY_PAGE_MESSAGES)} and ${Math.floor((from + limit - 1) / TRAJECTORY_PAGE_MESSAGES)}
      and tp.page * ${TRAJECTORY_PAGE_MESSAGES} + e.ord - 1 >= ${from} and tp.page * ${TRAJECTORY_PAGE_MESSAGES} + e.ord - 1 < ${from + limit}
    order by tp.page, e.ord`);
  return result.rows;
}

/** The page read itself, for server components that have already checked access. */
export async function readTurnPage(db: Db, rolloutId: number, from: number, limit: number, preview = 600): Promise<TurnPage> {
  const pagedTotal = await pagedMessageCount(db, rolloutId);
  if (pagedTotal !== null) {
    const rows = await pagedMessages(db, rolloutId, from, limit);
    return { rolloutId, total: pagedTotal, from, turns: rows.map((r) => outlineMessage(r.m, r.idx, preview)) };
  }
  // Stored whole only (short trajectories): one pass over the array, the value is detoasted once, only the asked-for elements leave Postgres.
  const result = await db.execute<{ total: number | null; idx: number | null; m: RawMessage | null }>(sql`
    with p as (select ${rolloutPayloads.trajectory} as t from ${rolloutPayloads} where ${rolloutPayloads.rolloutId} = ${rolloutId})
    select (select case when jsonb_typeof(t) = 'array' then jsonb_array_length(t) else 0 end from p)::int as total,
           (e.ord - 1)::int as idx, e.m
    from p left join lateral jsonb_array_elements(case when jsonb_typeof(p.t) = 'array' then p.t else '[]'::jsonb end)
      with ordinality as e(m, ord) on e.ord > ${from} and e.ord <= ${from + limit}
    order by e.ord`);
  const rows = result.rows;
  const total = rows[0]?.total ?? 0;
  const turns = rows.filter((r) => r.idx !== null && r.m).map((r) => outlineMessage(r.m as RawMessage, r.idx as number, preview));
  return { rolloutId, total, from, turns };
}

/** One message in full, its content sliced; 404 past the end. */
export async function turnSlice(db: Db, rolloutId: number, index: number, query: unknown, principal: Principal): Promise<TurnSlice> {
  const q = parseOrThrow(turnSliceQuery, query, "query", 400);
  await authorize(db, rolloutId, principal);
  const m =
    (await pagedMessageCount(db, rolloutId)) !== null
      ? (await pagedMessages(db, rolloutId, index, 1))[0]?.m
      : await wholeMessage(db, rolloutId, index);
  if (!m) throw new NotFound(`Rollout ${rolloutId} has no message ${index}.`);
  // offsets count in the content without its reasoning, as the outline's length does
  const { content, reasoning } = splitReasoning(typeof m.content === "string" ? m.content : "", m.reasoning);
  return {
    index,
    role: m.role ?? "unknown",
    length: content.length,
    offset: q.offset,
    content: content.slice(q.offset, q.offset + q.length),
    ...(reasoning ? { reasoning: cut(reasoning, REASONING_MAX), reasoningLength: reasoning.length } : {}),
    toolCalls: m.toolCalls ?? [],
    ...(m.toolCallId ? { toolCallId: m.toolCallId } : {}),
    documents: m.retrievedDocuments ?? [],
    ...(typeof m.tokens === "number" ? { tokens: m.tokens } : {}),
  };
}

/** Message `index` of a trajectory stored whole (rollout_payloads), or null. */
async function wholeMessage(db: Db, rolloutId: number, index: number): Promise<RawMessage | null> {
  const result = await db.execute<{ m: RawMessage | null }>(sql`
    select ${rolloutPayloads.trajectory} -> ${index}::int as m from ${rolloutPayloads} where ${rolloutPayloads.rolloutId} = ${rolloutId}`);
  return result.rows[0]?.m ?? null;
}

function likePattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Snippet of `text` around the first case-insensitive hit of `q`. */
export function snippetAround(text: string, q: string, width = 160): string {
  const at = text.toLowerCase().indexOf(q.toLowerCase());
  if (at < 0) return text.slice(0, width);
  const start = Math.max(0, at - Math.floor((width - q.length) / 2));
  return (start > 0 ? "…" : "") + text.slice(start, start + width) + (start + width < text.length ? "…" : "");
}

/** Messages whose content, tool calls or retrieved documents contain q (case-insensitive). */
export async function searchTurns(db: Db, rolloutId: number, query: unknown, principal: Principal): Promise<TurnSearchResult> {
  const q = parseOrThrow(turnSearchQuery, query, "query", 400);
  await authorize(db, rolloutId, principal);
  const pattern = likePattern(q.q);
  const result = await db.execute<{ idx: number; content: string | null; calls: string | null; docs: string | null; total: number }>(sql`
    with hits as (
      select (e.ord - 1)::int as idx, e.m->>'content' as content, (e.m->'toolCalls')::text as calls, (e.m->'retrievedDocuments')::text as docs
      from ${rolloutPayloads} p,
        jsonb_array_elements(case when jsonb_typeof(p.trajectory) = 'array' then p.trajectory else '[]'::jsonb end) with ordinality as e(m, ord)
      where p.rollout_id = ${rolloutId}
        and (e.m->>'content' ilike ${pattern} or (e.m->'toolCalls')::text ilike ${pattern} or (e.m->'retrievedDocuments')::text ilike ${pattern})
    )
    select idx, left(content, 1000000) as content, left(calls, 100000) as calls, left(docs, 100000) as docs, (count(*) over ())::int as total
    from hits order by idx limit ${q.limit}`);
  const matches = result.rows.map((r) => {
    const source = [r.content, r.calls, r.docs].find((s) => s && s.toLowerCase().includes(q.q.toLowerCase())) ?? r.content ?? "";
    return { index: r.idx, snippet: snippetAround(source, q.q) };
  });
  return { query: q.q, matches, total: result.rows[0]?.total ?? 0 };
}
