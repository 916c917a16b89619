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
  "You receive the environment family's config fields, a structured summary of how the policy did in the current generation (behaviour, failure clusters with exemplar rollouts, success by field value, earlier proposals) and the current population.",
  "Propose the next population as a list of items, each with an op:",
  '- "keep": an environment that still teaches stays. Give its environmentKey.',
  '- "retire": an environment leaves (solved, hopeless, unsolvable or redundant). Give its environmentKey.',
  '- "mutate": a new child of one population member. Give parentKey and either "edits" ({"field.path": newValue}, applied to the parent\'s config; preferred) or a full "config". Change 1-3 fields.',
  '- "add": a brand-new environment. Give a full "config" with every field of the family.',
  "",
  "Rules:",
  "1. Every environment listed in the population gets exactly one keep or retire item.",
  "2. Configs use only the family's fields, stay within their bounds and levels, must be solvable, and must differ from every existing environment.",
  '3. Every item cites evidence: {"kind": "cluster", "ref": <cluster id>} or {"kind": "rollout", "ref": <rollout id>} using ONLY cluster ids and exemplar rollout ids present in the summary, or {"kind": "stat", "ref": <the statistic, e.g. "environments.fields.size">}. Never invent ids.',
  "4. rationale: one sentence saying why.",
  "5. predictedSuccess: your estimate of the policy's success rate on the environment, a number in [0, 1].",
  "6. direction: what the change trains: horizon (longer plans), uncertainty (noise, hidden information), precision (exactness, coordination) or diversify (coverage at the same difficulty).",
  "Solved environments (success >= 0.8): retire them or push a child harder along the direction the failures point to least. Hopeless ones (no successes): retire or make a child easier. Unsolvable ones: retire, never mutate toward them.",
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
    `Columns: key | config values in field order (${fields.map((f) => f.path).join(",")}) | successes/attempts | tier | flags (validation state, p_max, top failure clusters)`,
  ].join("\n");
  const totals = `Population totals: ${population.length} environments; ${countsText(facts)}.`;
  const task = [
    "",
    "# Task",
    `Propose the next population of about ${target} environments (keep + mutate + add): keep at most ${keepMax}, add about ${adds} (fresh configs or crossovers of two high-learnability parents), mutate for the rest.`,
    "Give every listed environment a keep or retire item. New environments get their keys from EnvForge: leave environmentKey out of mutate and add items.",
    "Example items:",
    '{"op": "keep", "environmentKey": "<key>", "direction": "precision", "rationale": "<one sentence>", "evidence": [{"kind": "cluster", "ref": "<cluster id>"}], "predictedSuccess": 0.5}',
    '{"op": "mutate", "parentKey": "<key>", "edits": {"<field path>": <new value>}, "direction": "horizon", "rationale": "<one sentence>", "evidence": [{"kind": "stat", "ref": "environments.fields.<field path>"}], "predictedSuccess": 0.4}',
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
  body.push(totals, task);

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
