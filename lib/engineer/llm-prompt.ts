/** The LLM engineer's prompt: the rules, the family's fields, the structured summary and the population, cut to a token budget (deterministic). */
import { difficultyTier, learnability } from "@/lib/analytics/metrics";
import { describeField } from "@/lib/families/define";
import { getFieldValue } from "@/lib/families/field-path";
import type { FieldLevel, FieldSpec } from "@/lib/families/types";
import { fitToBudget } from "./summary";
import { isHopeless, isSolved } from "./classification";
import type { EngineerInput, PopulationMember } from "./types";

export const DEFAULT_PROMPT_BUDGET_TOKENS = 12_000;

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface EngineerPrompt {
  messages: ChatMessage[];
  /** characters of all messages / 4 */
  tokenEstimate: number;
  /** population members listed in the prompt */
  environmentsShown: number;
  /** keys of the members left out for the budget (in population order) */
  omittedKeys: string[];
}

const SYSTEM_PROMPT = [
  "You are the environment engineer of EnvForge. You design the next generation of a curriculum of RL environments for a policy that is trained on them.",
  "Environments teach most when the policy succeeds on them sometimes but not always (learnability p(1-p) peaks at p = 0.5).",
  "",
  "You receive the environment family's config fields, a structured summary of how the policy did in the current " +
    "generation (behaviour, failure clusters with exemplar rollouts, success by field value, earlier proposals) and the " +
    "current population.",
  "Propose the next population as a list of items, each with an op:",
  '- "keep": an environment that still teaches stays. Give its environmentKey.',
  '- "retire": an environment leaves (solved, hopeless, unsolvable or redundant). Give its environmentKey.',
  '- "mutate": a new child of one population member. Give parentKey and either "edits" ({"field.path": newValue}, ' +
    'applied to the parent\'s config; preferred) or a full "config". Change 1-3 fields.',
  '- "add": a brand-new environment. Give a full "config" with every field of the family.',
  "",
  "Rules:",
  "1. Every environment listed in the population gets exactly one keep or retire item.",
  "2. Configs use only the family's fields, stay within their bounds and levels, must be solvable, and must differ from every existing environment.",
  '3. Every item cites evidence: {"kind": "cluster", "ref": <cluster id>} or {"kind": "rollout", "ref": <rollout id>} ' +
    'using ONLY cluster ids and exemplar rollout ids present in the summary, or {"kind": "stat", "ref": <the statistic, ' +
    'e.g. "environments.fields.size">}. Never invent ids.',
  "4. rationale: one sentence saying why.",
  "5. predictedSuccess: your estimate of the policy's success rate on the environment, a number in [0, 1].",
  "6. direction: what the change trains: horizon (longer plans), uncertainty (noise, hidden information), precision " +
    "(exactness, coordination) or diversify (coverage at the same difficulty).",
  "Solved environments (success >= 0.8): retire them or push a child harder along the direction the failures point to " +
    "least. Hopeless ones (no successes): retire or make a child easier. Unsolvable ones: retire, never mutate " +
    "toward them.",
  "",
  'Answer with one JSON object and nothing else: {"items": [...]}.',
].join("\n");

function formatLevel(level: FieldLevel): string {
  return typeof level === "string" ? JSON.stringify(level) : String(level);
}

function fieldLine(field: FieldSpec): string {
  let shape: string;
  switch (field.kind) {
    case "integer":
    case "number":
      shape = `${field.kind} in [${field.min ?? "-inf"}, ${field.max ?? "inf"}]${field.scale ? ", change it by factors" : ""}`;
      break;
    case "ordinal":
      shape = `ordinal, levels easy -> hard: ${(field.levels ?? []).map(formatLevel).join(" < ")}`;
      break;
    case "nominal":
      shape = field.levels ? `nominal, one of ${field.levels.map(formatLevel).join(" | ")}` : "nominal, free text";
      break;
    case "boolean":
      shape = "boolean";
      break;
  }
  const fixed = field.mutable === false ? "; fixed: copy it from the parent" : "";
  return `- ${field.path}: ${shape}; ${describeField(field)}${fixed}`;
}

/** A config value as short text: numbers rounded to 4 decimals, plain words unquoted. */
function compactValue(value: unknown): string {
  if (value === undefined) return "-";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : String(Number(value.toFixed(4)));
  if (typeof value === "string") return /^[\w.:/@+-]+$/.test(value) ? value : JSON.stringify(value);
  if (typeof value === "boolean") return String(value);
  return JSON.stringify(value) ?? "-";
}

interface MemberFacts {
  member: PopulationMember;
  n: number;
  s: number;
  rate: number | null;
  learnability: number;
  solved: boolean;
  hopeless: boolean;
  unsolvable: boolean;
}

function memberFacts(member: PopulationMember): MemberFacts {
  const n = Math.max(0, Math.floor(member.n));
  const s = Math.min(Math.max(0, Math.floor(member.s)), n);
  const pMax = member.validation.pMax;
  const unsolvable = member.validation.state === "unsolvable" || pMax === 0;
  const rate = n > 0 ? s / n : null;
  return {
    member,
    n,
    s,
    rate,
    learnability: unsolvable ? 0 : learnability(n, s, pMax),
    solved: isSolved(n, s),
    hopeless: isHopeless(n, s),
    unsolvable,
  };
}

function populationLine(facts: MemberFacts, fields: readonly FieldSpec[]): string {
  const { member } = facts;
  const values = fields.map((f) => compactValue(getFieldValue(member.config, f.path))).join(",");
  const tier = facts.rate === null ? "untested" : difficultyTier(facts.rate);
  const flags: string[] = [];
  if (member.validation.state !== "valid") flags.push(member.validation.state);
  const pMax = member.validation.pMax;
  if (pMax !== null && pMax < 1) flags.push(pMax > 0 && pMax < 0.001 ? "pmax<0.001" : `pmax=${compactValue(Number(pMax.toFixed(3)))}`);
  if (member.clusterIds.length > 0) flags.push(`clusters=${member.clusterIds.slice(0, 2).join(" ")}`);
  return `${member.key} | ${values} | ${facts.s}/${facts.n} | ${tier}${flags.length > 0 ? ` | ${flags.join("; ")}` : ""}`;
}

function countsText(facts: readonly MemberFacts[]): string {
  const solved = facts.filter((f) => f.solved).length;
  const hopeless = facts.filter((f) => f.hopeless).length;
  const unsolvable = facts.filter((f) => f.unsolvable).length;
  const untested = facts.filter((f) => f.n === 0).length;
  return `${solved} solved (success >= 0.8), ${hopeless} hopeless (0 successes in 4+ attempts), ${unsolvable} unsolvable, ${untested} untested`;
}

export const estimateTokens = (chars: number) => Math.ceil(chars / 4);

/** Characters of one file shown to the engineer at most (the rest is cut with a note). */
const TASK_FILE_CHARS = 6000;
/** Files of a task shown to the engineer: what the agent reads and what checks it. */
const SHOWN_TASK_FILE = /^(instruction\.md|task\.toml|tests\/.+|steps\/[^/]+\/(instruction\.md|tests\/.+))$/;

const TASK_RULES = [
  "# Evolving tasks by their files",
  "The tasks below are Harbor task folders. A mutate item of such a task evolves the task itself: the child is the parent's files plus your edits.",
  '- fileEdits: a list of {"path", "search", "replace"}: search is copied exactly from the file (whitespace and line ' +
    'breaks included) and occurs in it exactly once; or {"path", "content"} for a new file.',
  '- taskToml: task.toml keys and new values, e.g. {"agent.timeout_sec": 600, "verifier.timeout_sec": 300}.',
  "- Directions: horizon (more steps or sub-goals), uncertainty (hidden or noisy information, distractors), precision " +
    "(stricter checks, tighter tolerances, less time).",
  "- Keep tests/ (you may make checks stricter); change instruction and tests together so the task stays solvable; do " +
    "not edit config fields for these tasks (give no edits).",
  'Example: {"op": "mutate", "parentKey": "<task>", "direction": "precision", "fileEdits": [{"path": ' +
    '"instruction.md", "search": "<exact text>", "replace": "<new text>"}], "taskToml": {"agent.timeout_sec": 300}, ' +
    '"rationale": "<one sentence>", "evidence": [...], "predictedSuccess": 0.4}',
].join("\n");

/**
 * The files of the tasks that have them (instruction, task.toml, tests) and their failure excerpts,
 * in learnability order, as many whole tasks as fit in `chars`; null when no task has files.
 */
function taskFilesSection(input: EngineerInput, keysByRank: readonly string[], chars: number): string | null {
  const tasks = input.tasks ?? {};
  const keys = keysByRank.filter((k) => tasks[k]);
  if (keys.length === 0) return null;
  const blocks: string[] = [TASK_RULES];
  let left = chars - TASK_RULES.length - 200;
  const omitted: string[] = [];
  for (const key of keys) {
    const files = tasks[key];
    const excerpts = input.summary.failures.clusters
      .filter((c) => c.environmentKeys.includes(key) && !c.infra)
      .slice(0, 3)
      .map((c) => `- ${c.id} (${c.count} failures): ${c.excerpt}`);
    const lines = [`## Task ${key}`, `Files: ${files.map((f) => f.path).join(", ")}`];
    if (excerpts.length) lines.push("Failing trajectories (excerpts):", ...excerpts);
    for (const f of files) {
      if (!SHOWN_TASK_FILE.test(f.path)) continue;
      if (f.text === null) {
        lines.push(`### ${f.path} (binary or too large to show or edit)`);
        continue;
      }
      const cut = f.text.length > TASK_FILE_CHARS;
      lines.push(
        `### ${f.path}${cut ? ` (first ${TASK_FILE_CHARS} of ${f.text.length} characters)` : ""}`,
        "````",
        cut ? f.text.slice(0, TASK_FILE_CHARS) : f.text,
        "````",
      );
    }
    const block = lines.join("\n");
    if (block.length + 1 > left) {
      omitted.push(key);
      continue;
    }
    blocks.push(block);
    left -= block.length + 1;
  }
  if (omitted.length)
    blocks.push(`Files left out for the token budget: ${omitted.join(", ")} (mutate these by taskToml only, or keep/retire them).`);
  return blocks.join("\n");
}

/**
 * The engineer's messages: a system message with the role and the rules, and one user message
 * with the family's fields, the structured summary (JSON), the population (one line per
 * environment) and the task. When the whole would exceed `budgetTokens` (characters / 4), the
 * summary's lists are cut first (so they leave at least a third of the budget to the population),
 * then only the environments with the highest learnability are listed and the rest are counted.
 * Deterministic.
 */
export function buildEngineerPrompt(input: EngineerInput, budgetTokens = DEFAULT_PROMPT_BUDGET_TOKENS): EngineerPrompt {
  const { family, population, options } = input;
  const fixedWithoutSummary = estimateTokens(SYSTEM_PROMPT.length + family.fields.map(fieldLine).join("\n").length + 2000);
  const summaryRoom = Math.floor((budgetTokens * 2) / 3) - fixedWithoutSummary;
  const summary =
    estimateTokens(JSON.stringify(input.summary).length) > summaryRoom
      ? fitToBudget(input.summary, Math.max(200, summaryRoom))
      : input.summary;
  const fields = family.fields;
  const facts = population.map(memberFacts);

  const target = Math.max(1, options.populationSize ?? population.length);
  const keepMax = Math.floor(target * (options.keepShare ?? 0.5));
  const adds = Math.round(target * (options.addShare ?? 0.15));

  const head = [
    `# Family ${family.id} (version ${family.version})`,
    family.description,
    "Config fields (path: kind and bounds or levels; description; direction; difficulty):",
    ...fields.map(fieldLine),
    "",
    `# Structured summary (generation ${summary.generation}, policy ${summary.policy ?? "all"})`,
    JSON.stringify(summary),
    "",
    `# Current population (${population.length} environments)`,
    `Columns: key | config values in field order (${fields.map((f) => f.path).join(",")}) | successes/attempts | tier ` +
      `| flags (validation state, p_max, top failure clusters)`,
  ].join("\n");
  const totals = `Population totals: ${population.length} environments; ${countsText(facts)}.`;
  const task = [
    "",
    "# Task",
    `Propose the next population of about ${target} environments (keep + mutate + add): keep at most ` +
      `${keepMax}, add about ${adds} (fresh configs or crossovers of two high-learnability parents), mutate for the rest.`,
    "Give every listed environment a keep or retire item. New environments get their keys from EnvForge: leave environmentKey out of mutate and add items.",
    "Example items:",
    '{"op": "keep", "environmentKey": "<key>", "direction": "precision", "rationale": "<one sentence>", "evidence": ' +
      '[{"kind": "cluster", "ref": "<cluster id>"}], "predictedSuccess": 0.5}',
    '{"op": "mutate", "parentKey": "<key>", "edits": {"<field path>": <new value>}, "direction": "horizon", ' +
      '"rationale": "<one sentence>", "evidence": [{"kind": "stat", "ref": "environments.fields.<field path>"}], ' +
      '"predictedSuccess": 0.4}',
    'Answer with the JSON object {"items": [...]} only.',
  ].join("\n");

  // Lines in population order; which of them fit is decided by learnability rank.
  const lines = facts.map((f) => populationLine(f, fields));
  const ranked = facts
    .map((f, index) => ({ f, index }))
    .sort(
      (a, b) =>
        b.f.learnability - a.f.learnability ||
        (a.f.member.key < b.f.member.key ? -1 : a.f.member.key > b.f.member.key ? 1 : a.index - b.index),
    );
  const omissionReserve = 400; // room for the "left out" line
  const fixedChars = SYSTEM_PROMPT.length + head.length + totals.length + task.length + 4;
  let available = budgetTokens * 4 - fixedChars - omissionReserve;
  const shown = new Set<number>();
  const allChars = lines.reduce((sum, line) => sum + line.length + 1, 0);
  if (allChars <= available + omissionReserve) {
    lines.forEach((_, i) => shown.add(i));
  } else {
    for (const { index } of ranked) {
      const cost = lines[index].length + 1;
      if (cost > available) break;
      shown.add(index);
      available -= cost;
    }
  }

  const omitted = facts.filter((_, i) => !shown.has(i));
  const body: string[] = [head, ...lines.filter((_, i) => shown.has(i))];
  if (omitted.length > 0) {
    body.push(
      `Left out for the token budget: ${omitted.length} environments with lower learnability (${countsText(omitted)}); write no items for them.`,
    );
  }
  body.push(totals);
  const usedChars = SYSTEM_PROMPT.length + body.reduce((sum, line) => sum + line.length + 1, 0) + task.length;
  const taskFiles = taskFilesSection(
    input,
    ranked.map((r) => r.f.member.key).filter((_, i) => shown.has(ranked[i].index)),
    budgetTokens * 4 - usedChars,
  );
  if (taskFiles) body.push(taskFiles);
  body.push(task);

  const messages: ChatMessage[] = [
    { role: "system", content: SYSTEM_PROMPT },
    { role: "user", content: body.join("\n") },
  ];
  return {
    messages,
    tokenEstimate: estimateTokens(messages.reduce((sum, m) => sum + m.content.length, 0)),
    environmentsShown: shown.size,
    omittedKeys: omitted.map((f) => f.member.key),
  };
}
