/**
 * The rollouts of bench:scale as COPY text, deterministic in the rollout's number: environments skewed (a few take most
 * attempts), turns and output tokens long-tailed, failures over categories and a long tail of signatures. Shared by the
 * bench and the test that checks the bulk load against the triggers (tests/bulk-load.int.test.ts).
 */
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";

/** Deterministic pseudo-random in [0, 1) from an integer and a stream number. */
function rand(i: number, stream: number): number {
  let x = (Math.imul(i, 0x9e3779b1) ^ Math.imul(stream + 1, 0x85ebca6b)) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b) >>> 0;
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35) >>> 0;
  return ((x ^ (x >>> 16)) >>> 0) / 2 ** 32;
}

/** A standard normal from two uniforms (Box-Muller). */
function normal(i: number, stream: number): number {
  const u = Math.max(rand(i, stream), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand(i, stream + 100));
}

/** Per-environment base success: a third hopeless, a sixth solved, the rest spread (zero-signal environments exist). */
function environmentSuccess(env: number): number {
  const u = rand(env, 7);
  if (u < 0.33) return 0.01;
  if (u < 0.5) return 0.97;
  return rand(env, 8);
}

export const SIGNATURES = 400;
const CATEGORY_MIX: [string, number][] = [
  ["verifier_failed", 0.55],
  ["agent_timeout", 0.18],
  ["context_length_exceeded", 0.07],
  ["format_error", 0.06],
  ["infra_error", 0.06],
  ["environment_broken_by_agent", 0.04],
  ["verifier_timeout", 0.02],
  ["errored_other", 0.02],
];
const BEHAVIOURS = ["step_cap", "timeout_mid_command", "package_install_timeout", "format_errors", "never_ran_tests", "gave_up_early"];

/** COPY text format: backslash, tab and newline escaped; null as \N. */
function cell(v: string | number | boolean | null): string {
  if (v === null) return "\\N";
  if (typeof v !== "string") return String(v);
  return v.replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n").replace(/\r/g, "\\r");
}

/** Where the generated rollouts go: the project's ids, and how many rollouts in all and in the last generation. */
export interface Shape {
  projectId: number;
  generationIds: number[];
  environmentIds: number[];
  policyIds: number[];
  total: number;
  inGeneration: number;
  /** Rollout i gets id firstId + i in the COPY (a parallel load then numbers rows as a serial one would); unset: the sequence's. */
  firstId?: number;
}

/** Rollout i as one COPY line. The last `inGeneration` rollouts belong to the asked generation. */
export function rolloutLine(i: number, ids: Shape): string {
  const { total, inGeneration } = ids;
  const ENVIRONMENTS = ids.environmentIds.length;
  const gens = ids.generationIds.length;
  const g = i >= total - inGeneration ? gens - 1 : Math.floor((i / Math.max(1, total - inGeneration)) * (gens - 1));
  // skew: environment index ~ E * u^3, so the first tenth of environments take about half of the attempts
  const env = Math.min(ENVIRONMENTS - 1, Math.floor(ENVIRONMENTS * rand(i, 1) ** 3));
  const policy = Math.floor(rand(i, 2) * ids.policyIds.length);
  const p = Math.min(0.99, environmentSuccess(env) + policy * 0.03 + g * 0.01);
  const success = rand(i, 3) < p;
  // long tails: turns lognormal around 12 (a few in the thousands), output tokens per turn lognormal around 250
  const turns = Math.min(5000, Math.max(1, Math.round(Math.exp(Math.log(12) + 1.1 * normal(i, 4)))));
  const outputTokens = Math.min(2_000_000, Math.round(turns * Math.exp(Math.log(250) + 0.8 * normal(i, 5))));
  const inputTokens = Math.min(2_000_000_000, outputTokens * 6 + 1500);
  let category: string | null = null;
  let signature: string | null = null;
  let errorType: string | null = null;
  let errorMessage: string | null = null;
  let status = "completed";
  let reward: number | null = success ? 1 : 0;
  const behaviours: string[] = [];
  if (!success) {
    let u = rand(i, 6);
    category = CATEGORY_MIX[CATEGORY_MIX.length - 1][0];
    for (const [c, w] of CATEGORY_MIX) {
      if (u < w) {
        category = c;
        break;
      }
      u -= w;
    }
    // Zipf-like tail of signatures, shaped per environment
    const s = Math.floor(SIGNATURES * rand(i, 9) ** 4);
    signature = `${category}:${(env * 7 + s) % SIGNATURES}`;
    if (category === "agent_timeout" || category === "infra_error" || category === "context_length_exceeded") {
      status = "errored";
      errorType =
        category === "agent_timeout"
          ? "AgentTimeoutError"
          : category === "infra_error"
            ? "SandboxStartError"
            : "ContextLengthExceededError";
      errorMessage = `${errorType}: attempt ${i % 97} failed after ${turns} turns`;
      reward = category === "infra_error" && rand(i, 10) < 0.5 ? null : 0;
    }
    if (rand(i, 11) < 0.3) behaviours.push(BEHAVIOURS[Math.floor(rand(i, 12) * BEHAVIOURS.length)]);
  }
  const testsFailed = success ? 0 : 1 + Math.floor(rand(i, 13) * 4);
  const started = Date.UTC(2026, 10, 1) + i * 1000;
  return [
    ...(ids.firstId === undefined ? [] : [ids.firstId + i]),
    ids.projectId,
    ids.generationIds[g],
    ids.environmentIds[env],
    ids.policyIds[policy],
    cell(`s-${i}`),
    reward === null ? "\\N" : reward,
    success ? "t" : "f",
    status,
    cell(category),
    cell(signature),
    cell(errorType),
    cell(errorMessage),
    inputTokens,
    outputTokens,
    turns,
    reward === null ? "{no_reward}" : "{}",
    5 - Math.min(5, testsFailed),
    Math.min(5, testsFailed),
    `{${behaviours.join(",")}}`,
    cell(`trial-env-${env}__${(i % 100_000).toString(36)}`),
    new Date(started).toISOString(),
    new Date(started + turns * 20_000).toISOString(),
  ].join("\t");
}

export const COPY_COLUMNS =
  "project_id, generation_id, environment_id, policy_id, external_id, reward, success, status, failure_category, failure_signature, " +
  "error_type, error_message, input_tokens, output_tokens, turns, flags, tests_passed, tests_failed, behaviours, trial_name, started_at, finished_at";

/** COPY rollouts [from, to) in one statement. */
export async function copyRange(client: pg.Client, from: number, to: number, ids: Shape) {
  const CHUNK = 2000;
  async function* lines() {
    for (let i = from; i < to; i += CHUNK) {
      let text = "";
      for (let k = i; k < Math.min(to, i + CHUNK); k++) text += rolloutLine(k, ids) + "\n";
      yield text;
    }
  }
  await pipeline(
    Readable.from(lines()),
    client.query(copyFrom(`COPY rollouts (${ids.firstId === undefined ? "" : "id, "}${COPY_COLUMNS}) FROM STDIN`)),
  );
}
