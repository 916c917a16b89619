/**
 * The LLM engineer's answer: the JSON Schema it is asked for, extraction and repair of its text, item expansion and validation, and
 * the repair turn that quotes the errors.
 */
import { jsonrepair } from "jsonrepair";
import { getFieldValue, setFieldValue } from "@/lib/families/field-path";
import type { FamilyConfig, FamilyDefinition } from "@/lib/families/types";
import { applyTaskEdits, evolvedConfig, parseTaskEdits, type TaskEditError } from "@/lib/tasks/edits";
import type { EngineerInput, PopulationMember, ProposedItem } from "./types";
import { EVIDENCE_KINDS, PROPOSAL_DIRECTIONS, PROPOSAL_OPS, validateItems, type ItemError } from "./validate-items";

/** Errors quoted in one repair message. */
export const QUOTED_ERRORS = 20;

/** JSON Schema of the answer ({ items: [...] }); the family's config schema is embedded when it is self-contained. */
export function proposalJsonSchema(family: FamilyDefinition): Record<string, unknown> {
  const { $schema: _schema, title: _title, ...configSchema } = family.jsonSchema;
  const selfContained = !JSON.stringify(configSchema).includes('"$ref"');
  return {
    type: "object",
    properties: {
      items: {
        type: "array",
        items: {
          type: "object",
          properties: {
            op: { type: "string", enum: [...PROPOSAL_OPS] },
            environmentKey: { type: "string", description: "keep/retire: the population member" },
            parentKey: { type: "string" },
            secondParentKey: { type: "string" },
            config: selfContained ? configSchema : { type: "object" },
            edits: { type: "object", description: "field path -> new value, applied to the parent's config", additionalProperties: true },
            direction: { type: "string", enum: [...PROPOSAL_DIRECTIONS] },
            rationale: { type: "string" },
            evidence: {
              type: "array",
              items: {
                type: "object",
                properties: { kind: { type: "string", enum: [...EVIDENCE_KINDS] }, ref: { type: "string" }, note: { type: "string" } },
                required: ["kind", "ref"],
                additionalProperties: false,
              },
            },
            predictedSuccess: { type: "number", minimum: 0, maximum: 1 },
            fileEdits: {
              type: "array",
              description:
                "mutate of a task with files: edits of the parent's files, each {path, search, replace} (search occurs exactly " +
                "once), {path, patch} (unified diff) or {path, content} (a new file)",
              items: {
                type: "object",
                properties: {
                  path: { type: "string" },
                  search: { type: "string" },
                  replace: { type: "string" },
                  patch: { type: "string" },
                  content: { type: "string" },
                },
                required: ["path"],
                additionalProperties: false,
              },
            },
            taskToml: {
              type: "object",
              description: 'mutate of a task with files: task.toml keys and new values, e.g. {"agent.timeout_sec": 600}',
              additionalProperties: true,
            },
          },
          required: ["op", "rationale", "evidence"],
          additionalProperties: false,
        },
      },
    },
    required: ["items"],
    additionalProperties: false,
  };
}

// --- Answer parsing ------------------------------------------------------------------------

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The items of an answer: reasoning blocks and ``` fences stripped, then JSON.parse; prose around one object is tolerated. */
export function parseProposalText(text: string): { ok: true; items: unknown[] } | { ok: false; message: string } {
  let body = text.replace(/<think>[\s\S]*?<\/think>/g, "").trim();
  const fenced = /```(?:json|JSON)?\s*\n?([\s\S]*?)```/.exec(body);
  if (fenced) body = fenced[1].trim();
  if (body === "") return { ok: false, message: "Your answer is empty." };
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    const first = body.indexOf("{");
    const last = body.lastIndexOf("}");
    let recovered = false;
    if (first >= 0 && last > first && (first > 0 || last < body.length - 1)) {
      try {
        value = JSON.parse(body.slice(first, last + 1));
        recovered = true;
      } catch {
        // report the error of the whole answer below
      }
    }
    if (!recovered) {
      // Plain-text answers of small models: trailing commas, single quotes, comments, a cut-off end.
      const start = body.search(/[[{]/);
      try {
        if (start >= 0) {
          value = JSON.parse(jsonrepair(body.slice(start)));
          recovered = true;
        }
      } catch {
        // report the original parse error below
      }
    }
    if (!recovered) return { ok: false, message: `Your answer is not valid JSON: ${(err as Error).message}.` };
  }
  if (Array.isArray(value)) return { ok: true, items: value };
  if (isRecord(value) && Array.isArray(value.items)) return { ok: true, items: value.items };
  return { ok: false, message: 'Your answer must be one JSON object {"items": [...]} with a list of items.' };
}

/**
 * The LLM's raw items made ready for validateItems: new keys for mutate/add children (the model's
 * are ignored), `edits` applied onto the parent's (or the item's own) config, unknown or fixed
 * edit paths reported as errors.
 */
function expandItems(input: EngineerInput, rawItems: readonly unknown[]): { items: unknown[]; errors: ItemError[] } {
  const members = new Map(input.population.map((m) => [m.key, m]));
  const fieldsByPath = new Map(input.family.fields.map((f) => [f.path, f]));
  const errors: ItemError[] = [];
  let child = 0;
  const items = rawItems.map((raw, index) => {
    if (!isRecord(raw)) return raw;
    const base = `items.${index}`;
    const item: Record<string, unknown> = { ...raw };
    delete item.proposer;
    delete item.flags;
    delete item.taskEdits;
    if (item.op !== "mutate" && item.op !== "add") {
      delete item.edits;
      delete item.fileEdits;
      delete item.taskToml;
      return item;
    }
    child += 1;
    item.environmentKey = `${input.keyPrefix}llm-${child}`;
    const parent = typeof item.parentKey === "string" ? members.get(item.parentKey) : undefined;
    if (item.fileEdits !== undefined || item.taskToml !== undefined) {
      errors.push(...expandTaskEdits(input, item, parent, index));
      return item;
    }
    if (item.edits !== undefined && item.edits !== null) {
      const edits = item.edits;
      delete item.edits;
      if (!isRecord(edits)) {
        errors.push({ item: index, path: `${base}.edits`, message: 'edits must be an object {"field.path": newValue}.' });
        return item;
      }
      const start = isRecord(item.config) ? (item.config as FamilyConfig) : parent?.config;
      if (!start) {
        errors.push({
          item: index,
          path: `${base}.edits`,
          message: "edits apply to the parent's config: give a parentKey from the population, or a full config.",
        });
        return item;
      }
      let config: FamilyConfig = start;
      for (const [path, value] of Object.entries(edits)) {
        const field = fieldsByPath.get(path);
        if (!field) {
          errors.push({
            item: index,
            path: `${base}.edits.${path}`,
            message: `Unknown field "${path}": use one of ${[...fieldsByPath.keys()].join(", ")}.`,
          });
        } else {
          config = setFieldValue(config, path, value);
        }
      }
      item.config = config;
    }
    if (item.op === "mutate" && parent && isRecord(item.config)) {
      for (const field of input.family.fields) {
        if (field.mutable !== false) continue;
        const before = JSON.stringify(getFieldValue(parent.config, field.path));
        if (JSON.stringify(getFieldValue(item.config, field.path)) !== before) {
          errors.push({
            item: index,
            path: `${base}.config.${field.path}`,
            message: `"${field.path}" is fixed: keep the parent's value ${before}.`,
          });
        }
      }
    }
    return item;
  });
  return { items, errors };
}

/** A file-edit mutate item: its edits applied to the parent's files, its config the evolved task's; the errors (paths under items.N). */
function expandTaskEdits(
  input: EngineerInput,
  item: Record<string, unknown>,
  parent: PopulationMember | undefined,
  index: number,
): ItemError[] {
  const base = `items.${index}`;
  const raw = { files: item.fileEdits ?? [], taskToml: item.taskToml ?? {} };
  delete item.fileEdits;
  delete item.taskToml;
  const parentFiles = parent ? input.tasks?.[parent.key] : undefined;
  const withFiles = Object.keys(input.tasks ?? {});
  if (item.op !== "mutate" || !parent || !parentFiles) {
    const message =
      `fileEdits and taskToml evolve a task with files: use op "mutate" with the parentKey of one of ` +
      `${withFiles.slice(0, 20).join(", ") || "(none: no task has files)"}.`;
    return [{ item: index, path: `${base}.fileEdits`, message }];
  }
  if (item.edits !== undefined && item.edits !== null) {
    delete item.edits;
    return [
      { item: index, path: `${base}.edits`, message: "a task with files changes task.toml through taskToml, not edits: move them there." },
    ];
  }
  const where = (e: TaskEditError) =>
    e.path.startsWith("files")
      ? `${base}.fileEdits${e.path.slice("files".length)}`
      : e.path.startsWith("taskToml")
        ? `${base}.${e.path}`
        : `${base}.fileEdits`;
  const parsed = parseTaskEdits(raw);
  if (parsed.errors.length) return parsed.errors.map((e) => ({ item: index, path: where(e), message: e.message }));
  const applied = applyTaskEdits(parentFiles, parsed.edits);
  if (!applied.ok) return applied.errors.map((e) => ({ item: index, path: where(e), message: e.message }));
  item.config = evolvedConfig(parent.config, applied.fields, applied.filesDigest);
  item.taskEdits = parsed.edits;
  return [];
}

export type Interpretation = { ok: true; items: ProposedItem[] } | { ok: false; errors: ItemError[]; parseError?: string };

export function interpretAnswer(input: EngineerInput, text: string): Interpretation {
  const parsed = parseProposalText(text);
  if (!parsed.ok) return { ok: false, errors: [], parseError: parsed.message };
  const expanded = expandItems(input, parsed.items);
  const validated = validateItems(input, expanded.items, { proposer: "llm" });
  const expansionFailed = new Set(expanded.errors.map((e) => e.item));
  // An item whose edits could not be applied has no usable config: its config errors would only repeat that.
  const errors = [
    ...expanded.errors,
    ...validated.errors.filter((e) => !(expansionFailed.has(e.item) && e.path.startsWith(`items.${e.item}.config`))),
  ];
  errors.sort((a, b) => a.item - b.item);
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, items: validated.items };
}

export function repairMessage(result: Extract<Interpretation, { ok: false }>, finishReason: string | null): string {
  const lines: string[] = [];
  if (finishReason === "length")
    lines.push("Your answer was cut off at the output token limit: propose fewer items or shorter rationales.");
  if (result.parseError) {
    lines.push(result.parseError);
    lines.push('Answer again with only the JSON object {"items": [...]}: no prose, no code fences.');
    return lines.join("\n");
  }
  const shown = result.errors.slice(0, QUOTED_ERRORS);
  lines.push(`Your answer has ${result.errors.length} problem${result.errors.length === 1 ? "" : "s"}:`);
  for (const e of shown) lines.push(`- ${e.path}: ${e.message}`);
  if (result.errors.length > shown.length) lines.push(`- ... and ${result.errors.length - shown.length} more of the same kind.`);
  lines.push(
    'Fix them and answer again with the complete corrected JSON object {"items": [...]}: every item, not only the fixed ones, and nothing else.',
  );
  return lines.join("\n");
}

export function problemSummary(result: Extract<Interpretation, { ok: false }>): string {
  if (result.parseError) return result.parseError;
  const first = result.errors.slice(0, 3).map((e) => `${e.path}: ${e.message}`);
  return `${result.errors.length} validation error${result.errors.length === 1 ? "" : "s"}, e.g. ${first.join("; ")}`;
}

// --- The run -------------------------------------------------------------------------------
