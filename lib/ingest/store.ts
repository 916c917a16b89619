/**
 * Storing normalized rollouts: validation per line, environment/generation/policy resolution,
 * failure classification, and bulk writes in short transactions (the payloads by binary COPY, the
 * rollouts by an insert from unnest arrays). A line is one
 * unit: its rollout row and its payload row commit together or not at all.
 */
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type pg from "pg";
import { transactionOnConnection, type Db } from "@/lib/db/client";
import { copyBinary } from "@/lib/db/copy-binary";
import { environments, generationEnvironments, generations, policies, TRAJECTORY_PAGE_MESSAGES } from "@/lib/db/schema";
import { classifyRollout, failureSignature } from "@/lib/analytics/failures";
import { rolloutOutcome } from "@/lib/analytics/metrics";
import { configHash } from "@/lib/families/hash";
import { parseConfig } from "@/lib/families/parse";
import type { FamilyDefinition } from "@/lib/families/types";
import type { ProjectRow } from "@/lib/projects/service";
import { recordOracleValidation } from "@/lib/tasks/oracle";
import { rolloutBehaviours } from "@/lib/analytics/behaviours";
import { commandsFromTrajectory, type AgentCommand } from "@/lib/analytics/blame";
import { rolloutCostUsd } from "@/lib/rollouts/cost";
import { failureInputFromRollout, NO_REWARD_FLAG, parseRollout, rolloutFlags, rolloutTurns, type NormalizedRollout } from "./normalized";
import { ctrfSummary, testCounts } from "./harbor-parts";
import { PAGED_TRAJECTORY_MIN_CHARS, storeTrajectoryPages, trajectoryJson } from "./paged-trajectory";

export { PAGED_TRAJECTORY_MIN_CHARS };

export interface RejectedLine {
  line: number;
  code: string;
  message: string;
}

export interface IngestSummary {
  accepted: number;
  duplicates: number;
  rejected: RejectedLine[];
}

export interface IngestOptions {
  createEnvironments?: boolean;
  /** the only generation these rollouts may land in (a dispatch key's); rollouts without one go there */
  generation?: number;
  /** Rollouts per transaction. */
  batchSize?: number;
  onProgress?: (s: IngestSummary & { lines: number }) => void;
}

/** One input unit: a parsed JSON value, or the reason it could not be parsed. */
export type IngestLine = { line: number; value: unknown } | { line: number; error: string };

interface Prepared {
  line: number;
  rollout: NormalizedRollout;
  environmentId: number;
  generationId: number;
  policyName: string;
}

/** Caches per request: environments by key, generations by index, policies by name. */
class Resolver {
  private envs = new Map<string, { id: number; hash: string }>();
  private gens = new Map<number, number>();
  private latestGenByEnv = new Map<number, number | null>();
  private policies = new Map<string, number>();
  /** `${generationId}:${environmentId}` pairs known to be members, and keys whose sent config was checked. */
  private members = new Set<string>();
  /** Memberships resolve() found missing, written by addMembers() in one statement before the batch's rollouts. */
  private pendingMembers: { generationId: number; environmentId: number }[] = [];
  private checkedConfigs = new Set<string>();

  constructor(
    private db: Db,
    private project: ProjectRow,
    private family: FamilyDefinition,
    private opts: IngestOptions,
  ) {}

  async preload(keys: string[]) {
    const missing = [...new Set(keys)].filter((k) => !this.envs.has(k));
    if (!missing.length) return;
    // the keys as one array parameter, not an IN list of up to 1,000 parameters for Drizzle to build and the server to bind
    const rows = await this.db.execute<{ id: string; key: string; hash: string }>(sql`
      select id, key, config_hash as hash from environments
      where project_id = ${this.project.id} and key = any(${sql.param(missing)}::text[])`);
    for (const r of rows.rows) this.envs.set(r.key, { id: Number(r.id), hash: r.hash });
  }

  async generationId(index: number, create: boolean): Promise<number | null> {
    if (this.gens.has(index)) return this.gens.get(index)!;
    const [g] = await this.db
      .select({ id: generations.id })
      .from(generations)
      .where(and(eq(generations.projectId, this.project.id), eq(generations.index, index)));
    if (g) {
      this.gens.set(index, g.id);
      return g.id;
    }
    if (!create) return null;
    const [made] = await this.db
      .insert(generations)
      .values({ projectId: this.project.id, index, status: "active", source: "import" })
      .onConflictDoNothing()
      .returning({ id: generations.id });
    const id = made?.id ?? (await this.generationId(index, false))!;
    this.gens.set(index, id);
    return id;
  }

  /** The newest generation holding the environment (rollouts without `generation` go there). */
  async latestGenerationOf(environmentId: number): Promise<number | null> {
    if (this.latestGenByEnv.has(environmentId)) return this.latestGenByEnv.get(environmentId)!;
    const [g] = await this.db
      .select({ id: generations.id })
      .from(generationEnvironments)
      .innerJoin(generations, eq(generations.id, generationEnvironments.generationId))
      .where(eq(generationEnvironments.environmentId, environmentId))
      .orderBy(desc(generations.index))
      .limit(1);
    this.latestGenByEnv.set(environmentId, g?.id ?? null);
    return g?.id ?? null;
  }

  async latestGenerationIndex(): Promise<number | null> {
    const [g] = await this.db
      .select({ index: generations.index })
      .from(generations)
      .where(eq(generations.projectId, this.project.id))
      .orderBy(desc(generations.index))
      .limit(1);
    return g?.index ?? null;
  }

  /** Resolve one rollout to ids, creating environments when allowed; a string is a rejection. */
  async resolve(r: NormalizedRollout): Promise<{ environmentId: number; generationId: number } | { code: string; message: string }> {
    let env = this.envs.get(r.environmentKey);
    if (!env) {
      if (!this.opts.createEnvironments) {
        return {
          code: "unknown_environment",
          message:
            `environmentKey '${r.environmentKey}' is not an environment of this project (send ?createEnvironments=1 with ` +
            `environmentConfig to create it)`,
        };
      }
      if (!r.environmentConfig) {
        return {
          code: "missing_environment_config",
          message: `environmentKey '${r.environmentKey}' is new: environmentConfig is required with ?createEnvironments=1`,
        };
      }
      const parsed = parseConfig(this.family, r.environmentConfig);
      if (!parsed.ok) {
        const e = parsed.errors[0];
        return { code: "invalid_environment_config", message: `environmentConfig.${e.path}: ${e.message}` };
      }
      const hash = configHash(parsed.config);
      const [row] = await this.db
        .insert(environments)
        .values({ projectId: this.project.id, key: r.environmentKey, config: parsed.config, configHash: hash, op: "import" })
        .onConflictDoNothing()
        .returning({ id: environments.id });
      if (row) env = { id: row.id, hash };
      else {
        // another request created it in between
        this.envs.delete(r.environmentKey);
        await this.preload([r.environmentKey]);
        env = this.envs.get(r.environmentKey)!;
      }
      this.envs.set(r.environmentKey, env);
    } else if (r.environmentConfig && this.opts.createEnvironments && !this.checkedConfigs.has(r.environmentKey)) {
      const parsed = parseConfig(this.family, r.environmentConfig);
      if (parsed.ok && configHash(parsed.config) !== env.hash && !(await this.sameHarborTask(r.environmentKey, parsed.config))) {
        return {
          code: "environment_conflict",
          message: `environmentKey '${r.environmentKey}' exists with a different config; environments are immutable`,
        };
      }
      this.checkedConfigs.add(r.environmentKey);
    }

    let generationId: number | null;
    if (this.opts.generation !== undefined && r.generation !== undefined && r.generation !== this.opts.generation) {
      return {
        code: "generation_not_allowed",
        message: `this key may only post rollouts of generation ${this.opts.generation} (got ${r.generation})`,
      };
    }
    if (this.opts.generation !== undefined && r.generation === undefined) r = { ...r, generation: this.opts.generation };
    if (r.generation !== undefined) {
      generationId = await this.generationId(r.generation, !!this.opts.createEnvironments);
      if (generationId === null)
        return { code: "unknown_generation", message: `generation ${r.generation} does not exist in this project` };
    } else {
      generationId = await this.latestGenerationOf(env.id);
      if (generationId === null && this.opts.createEnvironments) {
        const latest = await this.latestGenerationIndex();
        generationId = await this.generationId(latest ?? 0, true);
      }
      if (generationId === null) {
        return { code: "no_generation", message: `environment '${r.environmentKey}' belongs to no generation; send \`generation\`` };
      }
    }
    const member = `${generationId}:${env.id}`;
    if (this.opts.createEnvironments && !this.members.has(member)) {
      this.pendingMembers.push({ generationId, environmentId: env.id });
      this.members.add(member);
    }
    return { environmentId: env.id, generationId };
  }

  /**
   * Write the memberships resolve() found missing, in one statement (they were a statement each: a batch over 1,000
   * environments sent 1,000 inserts). Before the batch's rollouts, as each insert came before its rollout.
   */
  async addMembers(): Promise<void> {
    if (!this.pendingMembers.length) return;
    const pending = this.pendingMembers;
    this.pendingMembers = [];
    await this.db.execute(sql`
      insert into generation_environments (generation_id, environment_id, op)
      select g, e, 'import' from unnest(${sql.param(pending.map((m) => m.generationId))}::int[],
        ${sql.param(pending.map((m) => m.environmentId))}::bigint[]) as t(g, e)
      on conflict do nothing`);
  }

  /**
   * A terminal task is identified by its name and git commit: a trial's config (with run-time
   * overrides) names the same task as the imported task folder when those agree.
   */
  private async sameHarborTask(key: string, sent: Record<string, unknown>): Promise<boolean> {
    if (this.family.id !== "terminal-task") return false;
    const [row] = await this.db
      .select({ config: environments.config })
      .from(environments)
      .where(and(eq(environments.projectId, this.project.id), eq(environments.key, key)));
    const stored = (row?.config ?? {}) as Record<string, unknown>;
    if (stored.task_name !== sent.task_name) return false;
    return !stored.git_commit || !sent.git_commit || stored.git_commit === sent.git_commit;
  }

  async policyIds(names: string[]): Promise<Map<string, number>> {
    const missing = [...new Set(names)].filter((n) => !this.policies.has(n));
    if (missing.length) {
      await this.db
        .insert(policies)
        .values(missing.map((name) => ({ projectId: this.project.id, name, step: stepFromName(name) })))
        .onConflictDoNothing();
      const rows = await this.db
        .select({ id: policies.id, name: policies.name })
        .from(policies)
        .where(and(eq(policies.projectId, this.project.id), inArray(policies.name, missing)));
      for (const r of rows) this.policies.set(r.name, r.id);
    }
    return this.policies;
  }
}

/** `swerl-step200` -> 200: a training step read from a checkpoint name, when it carries one. */
export function stepFromName(name: string): number | null {
  const m = /(?:step|ckpt|checkpoint|global_step)[-_]?(\d{1,15})/i.exec(name);
  return m ? Number(m[1]) : null;
}

/** Store rollouts from an async source of lines; returns what was accepted, duplicated and rejected. */
export async function ingestRollouts(
  db: Db,
  project: ProjectRow,
  family: FamilyDefinition,
  lines: AsyncIterable<IngestLine> | Iterable<IngestLine>,
  opts: IngestOptions = {},
): Promise<IngestSummary> {
  const batchSize = opts.batchSize ?? 1000;
  const resolver = new Resolver(db, project, family, opts);
  const summary: IngestSummary = { accepted: 0, duplicates: 0, rejected: [] };
  const seen = new Set<string>();
  let batch: { line: number; rollout: NormalizedRollout }[] = [];
  let lineCount = 0;

  const flush = async () => {
    if (!batch.length) return;
    const current = batch;
    batch = [];
    await resolver.preload(current.map((b) => b.rollout.environmentKey));
    const prepared: Prepared[] = [];
    for (const { line, rollout } of current) {
      const res = await resolver.resolve(rollout);
      if ("code" in res) summary.rejected.push({ line, code: res.code, message: res.message });
      else prepared.push({ line, rollout, ...res, policyName: rollout.policy });
    }
    await resolver.addMembers();
    if (prepared.length) {
      const policyIds = await resolver.policyIds(prepared.map((p) => p.policyName));
      const inserted = await insertBatch(db, project, prepared, policyIds);
      summary.accepted += inserted;
      summary.duplicates += prepared.length - inserted;
      await recordOracleValidation(db, project.id, prepared, project.successThreshold);
    }
    opts.onProgress?.({ ...summary, lines: lineCount });
  };

  for await (const item of lines as AsyncIterable<IngestLine>) {
    lineCount = Math.max(lineCount, item.line);
    if ("error" in item) {
      summary.rejected.push({ line: item.line, code: "malformed_json", message: item.error });
      continue;
    }
    const parsed = parseRollout(item.value);
    if (!parsed.ok) {
      const first = parsed.issues[0];
      summary.rejected.push({
        line: item.line,
        code: "invalid_rollout",
        message: parsed.issues.map((i) => `${i.path}: ${i.message}`).join("; ") || first?.message || "invalid",
      });
      continue;
    }
    const id = parsed.rollout.externalId;
    if (seen.has(id)) {
      summary.duplicates++;
      continue;
    }
    seen.add(id);
    batch.push({ line: item.line, rollout: parsed.rollout });
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  summary.rejected.sort((a, b) => a.line - b.line);
  return summary;
}

/** Longest stretch of classification work between two turns of the event loop. */
const CLASSIFY_SLICE_MS = 20;

/**
 * A function to await between units of CPU-bound work: it gives the event loop a turn
 * (setImmediate) once CLASSIFY_SLICE_MS have passed since the last one, and is free otherwise.
 */
export function eventLoopYielder(sliceMs = CLASSIFY_SLICE_MS): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < sliceMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    since = performance.now();
  };
}

/** A Postgres text[] literal, e.g. {"no_reward","x"}. */
function arrayLiteral(values: string[]): string {
  return `{${values.map((v) => `"${v.replace(/["\\]/g, "\\$&")}"`).join(",")}}`;
}

/** Insert one batch in one transaction; returns how many rows were new (the rest were known externalIds). */
async function insertBatch(db: Db, project: ProjectRow, rows: Prepared[], policyIds: Map<string, number>): Promise<number> {
  const cols = {
    generationId: [] as number[],
    environmentId: [] as number[],
    policyId: [] as number[],
    externalId: [] as string[],
    reward: [] as (number | null)[],
    success: [] as boolean[],
    status: [] as string[],
    category: [] as (string | null)[],
    signature: [] as (string | null)[],
    errorType: [] as (string | null)[],
    errorMessage: [] as (string | null)[],
    inputTokens: [] as (number | null)[],
    outputTokens: [] as (number | null)[],
    turns: [] as (number | null)[],
    costUsd: [] as (number | null)[],
    flags: [] as string[],
    testsPassed: [] as (number | null)[],
    testsFailed: [] as (number | null)[],
    behaviours: [] as string[],
    trialName: [] as (string | null)[],
    startedAt: [] as (string | null)[],
    finishedAt: [] as (string | null)[],
  };
  const payloads = new Map<string, Payload>();
  const yieldIfBusy = eventLoopYielder();
  for (const p of rows) {
    // classification reads megabytes of hostile text per rollout: let health checks and other requests in between
    await yieldIfBusy();
    const r = p.rollout;
    const flags = rolloutFlags(r);
    const unrewarded = flags.includes(NO_REWARD_FLAG) || r.reward === undefined;
    const outcome = rolloutOutcome({ reward: unrewarded ? null : r.reward, success: r.success, unrewarded }, project.successThreshold);
    // the trajectory's commands, read once for the failure classifier and the behaviours
    const commands = commandsFromTrajectory(r.trajectory);
    const failureInput = failureInputFromRollout(r, project.successThreshold, commands);
    const category = outcome.success ? null : classifyRollout({ ...failureInput, success: false });
    const status = r.status ?? (r.error ? "errored" : "completed");
    cols.generationId.push(p.generationId);
    cols.environmentId.push(p.environmentId);
    cols.policyId.push(policyIds.get(p.policyName)!);
    cols.externalId.push(r.externalId);
    cols.reward.push(unrewarded ? null : (r.reward ?? null));
    cols.success.push(outcome.success);
    cols.status.push(status);
    cols.category.push(category);
    cols.signature.push(category ? failureSignature({ ...failureInput, success: false }, category) : null);
    cols.errorType.push(r.error?.type ?? null);
    cols.errorMessage.push(r.error?.message?.slice(0, 4000) ?? null);
    cols.inputTokens.push(r.inputTokens ?? null);
    cols.outputTokens.push(r.outputTokens ?? null);
    cols.turns.push(rolloutTurns(r));
    cols.costUsd.push(rolloutCostUsd(r.metadata, r.trajectory));
    // text[] columns travel as one array literal per row (unnest cannot take ragged 2-D arrays)
    cols.flags.push(arrayLiteral(unrewarded && !flags.includes(NO_REWARD_FLAG) ? [...flags, NO_REWARD_FLAG] : flags));
    const tests = rolloutTestCounts(r);
    cols.testsPassed.push(tests?.passed ?? null);
    cols.testsFailed.push(tests?.failed ?? null);
    cols.behaviours.push(arrayLiteral(behavioursOfRollout(r, outcome.success, commands)));
    cols.trialName.push(typeof r.metadata?.trialName === "string" ? r.metadata.trialName.slice(0, 512) : null);
    cols.startedAt.push(r.startedAt ?? null);
    cols.finishedAt.push(r.finishedAt ?? null);
    // a long trajectory as pages only: its whole JSON text is never made here (Postgres assembles it from the pages)
    const json = r.trajectory ? trajectoryJson(r.trajectory) : null;
    payloads.set(r.externalId, {
      trajectory: json && "whole" in json ? json.whole : null,
      pages: json && "pages" in json ? json.pages : null,
      verifier: r.verifierOutput ?? null,
      metadata: r.metadata ? JSON.stringify(r.metadata) : null,
    });
  }
  return transactionOnConnection(db, async (tx, connection) => {
    // Payloads (and pages) go first, the rollouts last: the rollouts insert fires the aggregate triggers, which lock rows
    // that every concurrent batch of the same generation and policy shares, so those locks are held only until the commit,
    // not through megabytes of JSON. The payloads' foreign keys are checked at the commit (drizzle/0023_ingest_payloads_first.sql).
    await tx.execute(sql`set constraints rollout_payloads_rollout_id_rollouts_id_fk, trajectory_pages_rollout_id_rollouts_id_fk deferred`);
    // externalIds already stored are duplicates: no payload is written for them
    const known = new Set(
      (
        await tx.execute<{ external_id: string }>(sql`
          select external_id from rollouts where project_id = ${project.id} and external_id = any(${sql.param(cols.externalId)}::text[])`)
      ).rows.map((r) => r.external_id),
    );
    const withPayload = cols.externalId.filter((x) => !known.has(x) && payloadOf(payloads.get(x)!));
    const allocated = withPayload.length
      ? (
          await tx.execute<{ id: string }>(
            sql`select nextval(pg_get_serial_sequence('rollouts', 'id')) as id from generate_series(1, ${withPayload.length})`,
          )
        ).rows.map((r) => Number(r.id))
      : [];
    const idOf = new Map(withPayload.map((x, i) => [x, allocated[i]]));
    if (allocated.length) {
      const pl = withPayload.map((x) => payloads.get(x)!);
      // binary COPY: each value's bytes written once, no statement of 4,000 parameters for the server to parse and plan
      // (an INSERT ... VALUES built with Drizzle's sql.join took a tenth of the server's CPU through the API; its
      // parameters had replaced text[] arrays, whose every element pg escaped again)
      await copyPayloads(connection, allocated, pl);
      // long trajectories in pages, so the viewer never decompresses the whole document (ADR 0006), and the whole one from them
      for (let i = 0; i < allocated.length; i++) {
        const pages = pl[i].pages;
        if (pages) await storeTrajectoryPages(tx, allocated[i], pages, TRAJECTORY_PAGE_MESSAGES);
      }
    }
    const ids = cols.externalId.map((x) => idOf.get(x) ?? null);
    const inserted = await tx.execute<{ id: string; external_id: string }>(sql`
      insert into rollouts (id, project_id, generation_id, environment_id, policy_id, external_id, reward, success, status,
        failure_category, failure_signature, error_type, error_message, input_tokens, output_tokens, turns, cost_usd, flags,
        tests_passed, tests_failed, behaviours, trial_name, started_at, finished_at)
      select coalesce(t.id, nextval(pg_get_serial_sequence('rollouts', 'id'))), ${project.id}, t.g, t.e, t.p, t.x, t.rw, t.su, t.st,
        t.fc, t.fs, t.et, t.em, t.it, t.ot, t.tu, t.co, t.fl::text[], t.tp, t.tf, t.bh::text[], t.tn, t.sa::timestamptz, t.fa::timestamptz
      from unnest(${sql.param(ids)}::bigint[], ${sql.param(cols.generationId)}::int[], ${sql.param(cols.environmentId)}::bigint[],
        ${sql.param(cols.policyId)}::int[],
        ${sql.param(cols.externalId)}::text[], ${sql.param(cols.reward)}::float8[], ${sql.param(cols.success)}::bool[],
        ${sql.param(cols.status)}::text[], ${sql.param(cols.category)}::text[], ${sql.param(cols.signature)}::text[],
        ${sql.param(cols.errorType)}::text[], ${sql.param(cols.errorMessage)}::text[], ${sql.param(cols.inputTokens)}::int[],
        ${sql.param(cols.outputTokens)}::int[], ${sql.param(cols.turns)}::int[], ${sql.param(cols.costUsd)}::float8[],
        ${sql.param(cols.flags)}::text[], ${sql.param(cols.testsPassed)}::int[], ${sql.param(cols.testsFailed)}::int[], ${sql.param(cols.behaviours)}::text[],
        ${sql.param(cols.trialName)}::text[], ${sql.param(cols.startedAt)}::text[], ${sql.param(cols.finishedAt)}::text[])
        as t(id, g, e, p, x, rw, su, st, fc, fs, et, em, it, ot, tu, co, fl, tp, tf, bh, tn, sa, fa)
      on conflict (project_id, external_id) do nothing
      returning id, external_id`);
    // a concurrent request stored some of these externalIds between the check and the insert: their payloads go again
    const stored = new Set(inserted.rows.map((r) => Number(r.id)));
    const orphans = allocated.filter((id) => !stored.has(id));
    if (orphans.length) {
      await tx.execute(sql`delete from trajectory_pages where rollout_id = any(${sql.param(orphans)}::bigint[])`);
      await tx.execute(sql`delete from rollout_payloads where rollout_id = any(${sql.param(orphans)}::bigint[])`);
    }
    return inserted.rows.length;
  });
}

/** The columns of rollout_payloads the ingest's binary COPY writes, in order. */
export const PAYLOAD_COLUMNS = [
  { name: "rollout_id", kind: "int8" },
  { name: "trajectory", kind: "jsonb" },
  { name: "verifier_output", kind: "text" },
  { name: "metadata", kind: "jsonb" },
] as const;

/**
 * The payload rows of one batch, by one binary COPY on the batch's connection (inside its transaction), encoded a
 * megabyte at a time as the socket takes them (a trajectory here is at most PAGED_TRAJECTORY_MIN_CHARS of JSON, so
 * its buffer at most three times that; longer ones go in pages).
 */
async function copyPayloads(connection: pg.PoolClient, ids: readonly number[], payloads: readonly Payload[]): Promise<void> {
  const rows = payloads.map((p, i) => [ids[i], p.trajectory, p.verifier, p.metadata]);
  await copyBinary(connection, "rollout_payloads", PAYLOAD_COLUMNS, rows);
}

/** What a rollout stores in rollout_payloads: its trajectory's JSON whole, or (a long one) its pages' JSON. */
interface Payload {
  trajectory: string | null;
  pages: string[] | null;
  verifier: string | null;
  metadata: string | null;
}

/** Whether a rollout has anything to store in rollout_payloads. */
function payloadOf(p: Payload): boolean {
  return p.trajectory !== null || p.pages !== null || p.verifier !== null || p.metadata !== null;
}

function nonNegInt(v: unknown): number | undefined {
  return typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : undefined;
}

/**
 * Passed/failed tests of a rollout: what the reader recorded (`metadata.tests`, e.g. summed over a
 * multi-step trial), else a CTRF report in `metadata.ctrf`, else pytest's summary in the verifier output.
 */
export function rolloutTestCounts(r: NormalizedRollout): { passed: number; failed: number } | undefined {
  const recorded = r.metadata?.tests as { passed?: unknown; failed?: unknown } | undefined;
  if (recorded && nonNegInt(recorded.passed) !== undefined && nonNegInt(recorded.failed) !== undefined) {
    return { passed: recorded.passed as number, failed: recorded.failed as number };
  }
  return testCounts(r.verifierOutput, ctrfSummary(r.metadata?.ctrf === undefined ? undefined : { results: { summary: r.metadata.ctrf } }));
}

/** Behaviour ids of a rollout (lib/analytics/behaviours.ts) from its trajectory and what the reader recorded. */
function behavioursOfRollout(r: NormalizedRollout, success: boolean, commands: readonly AgentCommand[]): string[] {
  const meta = r.metadata ?? {};
  return rolloutBehaviours(
    {
      success,
      errorType: r.error?.type,
      turns: rolloutTurns(r),
      maxSteps: nonNegInt(meta.maxSteps) ?? null,
      formatErrors: nonNegInt(meta.formatErrors) ?? null,
      trajectory: r.trajectory,
    },
    commands,
  );
}
