/**
 * A rollout's step timeline: Harbor's phases (environment setup, agent setup, agent execution,
 * verifier) from the trial's result.json, and per step the time it took and what its LLM call cost,
 * where the source recorded them (ATIF step timestamps and metrics). Only the timed or priced
 * messages' small fields leave Postgres, so a 50,000-message trajectory costs one pass over it.
 */
import { eq, sql } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { rolloutPayloads, rollouts, trajectoryPages } from "@/lib/db/schema";
import { pagedMessageCount } from "./turns";
import { NotFound } from "@/lib/errors";
import { requireScope, type Principal } from "@/lib/auth/principal";

/** One Harbor phase with its duration. */
export interface TimelinePhase {
  name: "environmentSetup" | "agentSetup" | "agentExecution" | "verifier";
  label: string;
  startedAt: string;
  finishedAt: string;
  seconds: number;
}

/** One step (message) that carries a time or a cost. */
export interface TimelineStep {
  /** index of the message in the trajectory */
  index: number;
  role: string;
  at: string | null;
  /** seconds until the next timed message (null for the last one or when untimed) */
  seconds: number | null;
  costUsd: number | null;
  promptTokens: number | null;
  completionTokens: number | null;
}

export interface RolloutTimeline {
  phases: TimelinePhase[];
  steps: TimelineStep[];
  /** steps beyond the cap were left out (the chart shows the first ones) */
  truncated: boolean;
  /** the rollout's cost: the source's total where it gave one, else the sum of its steps' costs */
  costUsd: number | null;
}

/** Most steps a timeline carries (a chart of more bars is unreadable anyway). */
export const TIMELINE_STEP_CAP = 2000;

const PHASES: { name: TimelinePhase["name"]; label: string }[] = [
  { name: "environmentSetup", label: "environment setup" },
  { name: "agentSetup", label: "agent setup" },
  { name: "agentExecution", label: "agent execution" },
  { name: "verifier", label: "verifier" },
];

function millis(v: unknown): number | null {
  if (typeof v !== "string") return null;
  const t = Date.parse(v);
  return Number.isFinite(t) ? t : null;
}

function finite(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

/** The phases recorded in a rollout's metadata (`metadata.phases.<name>.{startedAt,finishedAt}`), in order. */
export function timelinePhases(metadata: unknown): TimelinePhase[] {
  const phases = (metadata as { phases?: Record<string, { startedAt?: unknown; finishedAt?: unknown } | undefined> } | null)?.phases;
  if (!phases || typeof phases !== "object") return [];
  const out: TimelinePhase[] = [];
  for (const p of PHASES) {
    const raw = phases[p.name];
    const start = millis(raw?.startedAt);
    const end = millis(raw?.finishedAt);
    if (start === null || end === null || end < start) continue;
    out.push({ ...p, startedAt: raw!.startedAt as string, finishedAt: raw!.finishedAt as string, seconds: (end - start) / 1000 });
  }
  return out;
}

/** Steps from the timed or priced messages (index order): each step's duration runs to the next timed message. */
export function timelineSteps(
  rows: readonly { index: number; role: string | null; at: string | null; usage: Record<string, unknown> | null }[],
): TimelineStep[] {
  const steps: TimelineStep[] = rows.map((r) => ({
    index: r.index,
    role: r.role ?? "unknown",
    at: millis(r.at) === null ? null : r.at,
    seconds: null,
    costUsd: finite(r.usage?.costUsd),
    promptTokens: finite(r.usage?.promptTokens),
    completionTokens: finite(r.usage?.completionTokens),
  }));
  let next: number | null = null;
  for (let i = steps.length - 1; i >= 0; i--) {
    const t = millis(steps[i].at);
    if (t === null) continue;
    if (next !== null && next >= t) steps[i].seconds = (next - t) / 1000;
    next = t;
  }
  return steps;
}

/** The timeline of one rollout (the caller checked the rollout is readable). */
export async function readRolloutTimeline(db: Db, rolloutId: number): Promise<RolloutTimeline> {
  type Row = { idx: number; role: string | null; at: string | null; usage: Record<string, unknown> | null; meta: unknown };
  // A paged trajectory (trajectory_pages) keeps its timed steps apart: its 100 MB of messages are not read.
  const result =
    (await pagedMessageCount(db, rolloutId)) !== null
      ? await db.execute<Row>(sql`
    with p as (select ${rolloutPayloads.metadata} as meta from ${rolloutPayloads} where ${rolloutPayloads.rolloutId} = ${rolloutId}),
         s as (select (st ->> 'i')::int as idx, st ->> 'role' as role, st ->> 'at' as at, st -> 'usage' as usage
               from ${trajectoryPages} tp cross join lateral jsonb_array_elements(tp.steps) as st
               where tp.rollout_id = ${rolloutId}
               order by tp.page, (st ->> 'i')::int
               limit ${TIMELINE_STEP_CAP + 1})
    select s.idx, s.role, s.at, s.usage, p.meta from p left join s on true order by s.idx`)
      : await db.execute<Row>(sql`
    with p as (select ${rolloutPayloads.trajectory} as t, ${rolloutPayloads.metadata} as meta
               from ${rolloutPayloads} where ${rolloutPayloads.rolloutId} = ${rolloutId})
    select (e.ord - 1)::int as idx, e.m ->> 'role' as role, e.m ->> 'timestamp' as at, e.m -> 'usage' as usage, p.meta
    from p left join lateral jsonb_array_elements(case when jsonb_typeof(p.t) = 'array' then p.t else '[]'::jsonb end)
      with ordinality as e(m, ord) on (e.m ? 'timestamp' or e.m ? 'usage')
    order by e.ord
    limit ${TIMELINE_STEP_CAP + 1}`);
  const rows = result.rows;
  const metadata = rows[0]?.meta ?? null;
  const timed = rows.filter((r) => r.idx !== null);
  const steps = timelineSteps(timed.slice(0, TIMELINE_STEP_CAP).map((r) => ({ index: r.idx, role: r.role, at: r.at, usage: r.usage })));
  const total = finite((metadata as { costUsd?: unknown } | null)?.costUsd);
  const priced = steps.filter((s) => s.costUsd !== null);
  return {
    phases: timelinePhases(metadata),
    steps,
    truncated: timed.length > TIMELINE_STEP_CAP,
    costUsd: total ?? (priced.length ? priced.reduce((a, s) => a + (s.costUsd ?? 0), 0) : null),
  };
}

/** GET /rollouts/{id}/timeline: the rollout's phases, timed steps and cost, for a caller who may read its project. */
export async function rolloutTimeline(db: Db, rolloutId: number, principal: Principal): Promise<RolloutTimeline> {
  const [row] = await db.select({ projectId: rollouts.projectId }).from(rollouts).where(eq(rollouts.id, rolloutId));
  if (!row) throw new NotFound(`Rollout ${rolloutId} does not exist.`);
  requireScope(principal, "projects:read", row.projectId);
  return readRolloutTimeline(db, rolloutId);
}
