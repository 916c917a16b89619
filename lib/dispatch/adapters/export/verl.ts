/**
 * The verl part of the export: RL dataset rows whose `prompt` is the rendered task (the chat the
 * policy sees), whose `reward_model.ground_truth` is what envforge_reward.py needs to score an
 * answer, and whose multiplicity follows the curriculum weights, so verl's default random sampler
 * (data.shuffle=True) draws environments in proportion to their weights with no sampler of ours.
 */
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { parquetWriteBuffer } from "hyparquet-writer";
import { getBuiltinFamily } from "@/lib/families/registry";
import { renderTaskInstance } from "@/lib/families/tasks";
import type { GenerationPayload } from "../../types";

/** Rows per environment on average when weights are apportioned (the export config may change it). */
export const DEFAULT_VERL_ROWS_PER_ENVIRONMENT = 4;

export interface VerlRow {
  data_source: string;
  prompt: { role: string; content: string }[];
  ability: string;
  reward_model: { style: string; ground_truth: string };
  extra_info: { environment_key: string; config_hash: string; weight: number; split: string; index: number };
}

/** A task description for a config of a family without a renderer: the family, then each field with its value and meaning. */
export function describeEnvironment(family: string, config: Record<string, unknown>): string {
  const definition = getBuiltinFamily(family);
  const meaning = new Map((definition?.fields ?? []).map((f) => [f.path, f.description]));
  const lines: string[] = [];
  const walk = (value: unknown, prefix: string) => {
    if (value && typeof value === "object" && !Array.isArray(value) && !meaning.has(prefix)) {
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) walk(v, prefix ? `${prefix}.${k}` : k);
      return;
    }
    const about = meaning.get(prefix);
    lines.push(`- ${prefix}: ${JSON.stringify(value)}${about ? ` (${about})` : ""}`);
  };
  walk(config, "");
  return `Solve this task from the "${family}" environment family.\n\nConfiguration:\n${lines.join("\n")}`;
}

/**
 * Rows per environment in proportion to the weights (largest remainder over rowsPerEnvironment x
 * the environments of positive weight); every environment of positive weight keeps at least one
 * row, weight 0 drops it.
 */
export function apportionRows(weights: number[], rowsPerEnvironment = DEFAULT_VERL_ROWS_PER_ENVIRONMENT): number[] {
  const positive = weights.filter((w) => w > 0);
  const sum = positive.reduce((a, b) => a + b, 0);
  if (sum <= 0) return weights.map(() => 0);
  const total = rowsPerEnvironment * positive.length;
  const exact = weights.map((w) => (w > 0 ? (w / sum) * total : 0));
  const counts = exact.map((x, i) => (weights[i] > 0 ? Math.max(1, Math.floor(x)) : 0));
  let left = total - counts.reduce((a, b) => a + b, 0);
  const order = exact
    .map((x, i) => ({ i, rest: x - Math.floor(x) }))
    .filter(({ i }) => weights[i] > 0)
    .sort((a, b) => b.rest - a.rest || a.i - b.i);
  for (let k = 0; left > 0 && order.length > 0; k = (k + 1) % order.length, left--) counts[order[k].i] += 1;
  return counts;
}

/** verl RL dataset rows: each environment's rendered task, repeated in proportion to its weight. */
export function verlRows(payload: GenerationPayload, rowsPerEnvironment = DEFAULT_VERL_ROWS_PER_ENVIRONMENT): VerlRow[] {
  const family = payload.project.family;
  const counts = apportionRows(
    payload.environments.map((env) => env.weight),
    rowsPerEnvironment,
  );
  const rows: VerlRow[] = [];
  payload.environments.forEach((env, envIndex) => {
    if (counts[envIndex] === 0) return;
    let task = null;
    try {
      task = renderTaskInstance(family, env.config);
    } catch {
      task = null; // a config the family cannot render (e.g. more agents than the grid holds) falls back to its description
    }
    const prompt = task ? task.messages : [{ role: "user", content: describeEnvironment(family, env.config) }];
    const groundTruth = task ? task.groundTruth : { family, answer_format: "none", config: env.config };
    for (let copy = 0; copy < counts[envIndex]; copy++) {
      rows.push({
        data_source: `envforge/${family}`,
        prompt,
        ability: family,
        reward_model: { style: "rule", ground_truth: JSON.stringify(groundTruth) },
        extra_info: { environment_key: env.key, config_hash: env.configHash, weight: env.weight, split: "train", index: rows.length },
      });
    }
  });
  return rows;
}

/** What verl's data.max_prompt_length must be for the exported rows (its default 512 stops a run at the first longer prompt). */
export interface VerlPromptBudget {
  longestPromptChars: number;
  longestPromptBytes: number;
  /** data.max_prompt_length that holds every prompt: an upper bound on their tokens, a multiple of 256 */
  maxPromptLength: number;
}

/** Tokens a chat template may add: per message (role markers) and once (generation prompt, a default system prompt). */
const TEMPLATE_TOKENS_PER_MESSAGE = 16;
const TEMPLATE_TOKENS = 128;

/**
 * The prompt length verl needs for these rows, from their UTF-8 bytes: a byte-level BPE token (Qwen,
 * Llama 3, GPT families) stands for at least one byte, so bytes plus the template's tokens bound the
 * tokenized prompt whatever the model's tokenizer is, without shipping one.
 */
export function verlPromptBudget(rows: VerlRow[]): VerlPromptBudget {
  let chars = 0;
  let bytes = 0;
  let bound = 0;
  for (const row of rows) {
    const text = row.prompt.map((m) => m.content);
    const b = text.reduce((n, t) => n + Buffer.byteLength(t, "utf8"), 0);
    chars = Math.max(
      chars,
      text.reduce((n, t) => n + t.length, 0),
    );
    bytes = Math.max(bytes, b);
    bound = Math.max(bound, b + TEMPLATE_TOKENS_PER_MESSAGE * row.prompt.length + TEMPLATE_TOKENS);
  }
  return { longestPromptChars: chars, longestPromptBytes: bytes, maxPromptLength: Math.max(256, Math.ceil(bound / 256) * 256) };
}

const utf8 = (name: string) => ({
  name,
  type: "BYTE_ARRAY" as const,
  converted_type: "UTF8" as const,
  repetition_type: "OPTIONAL" as const,
});

/** Parquet schema of the verl rows: nested list/structs as pandas/pyarrow write them (3-level LIST). */
const VERL_PARQUET_SCHEMA = [
  { name: "root", num_children: 5 },
  utf8("data_source"),
  { name: "prompt", repetition_type: "OPTIONAL" as const, converted_type: "LIST" as const, num_children: 1 },
  { name: "list", repetition_type: "REPEATED" as const, num_children: 1 },
  { name: "element", repetition_type: "OPTIONAL" as const, num_children: 2 },
  utf8("role"),
  utf8("content"),
  utf8("ability"),
  { name: "reward_model", repetition_type: "OPTIONAL" as const, num_children: 2 },
  utf8("style"),
  utf8("ground_truth"),
  { name: "extra_info", repetition_type: "OPTIONAL" as const, num_children: 5 },
  utf8("environment_key"),
  utf8("config_hash"),
  { name: "weight", type: "DOUBLE" as const, repetition_type: "OPTIONAL" as const },
  utf8("split"),
  { name: "index", type: "INT64" as const, repetition_type: "OPTIONAL" as const },
];

/** The verl rows as a Parquet file (snappy, one row group per 100k rows). */
export function verlParquet(rows: VerlRow[]): Buffer {
  const column = <K extends keyof VerlRow>(name: K, map: (row: VerlRow) => unknown = (row) => row[name]) => ({ name, data: rows.map(map) });
  const buffer = parquetWriteBuffer({
    columnData: [
      column("data_source"),
      column("prompt"),
      column("ability"),
      column("reward_model"),
      column("extra_info", (row) => ({ ...row.extra_info, index: BigInt(row.extra_info.index) })),
    ],
    schema: VERL_PARQUET_SCHEMA,
    createdBy: "envforge export",
  });
  return Buffer.from(buffer);
}

/** envforge_reward.py, the stdlib-only verl reward function shipped with every export. */
export function verlRewardModule(): string {
  return fs.readFileSync(fileURLToPath(new URL("./envforge_reward.py", import.meta.url)), "utf8");
}
