/**
 * Validation of proposed items, shared by the heuristic and the LLM engineer: item shape, keys
 * against the population, every new config against the family schema and validator, duplicate
 * config hashes and evidence refs against the summary. Error paths ("items.3.config.size") are
 * meant to be quoted back to an LLM in a repair turn.
 */
import { configHash } from "@/lib/families/hash";
import { parseConfig, ROOT_PATH } from "@/lib/families/parse";
import type { Direction, FamilyConfig } from "@/lib/families/types";
import type { EngineerInput, EvidenceRef, ProposedItem } from "./types";

export const PROPOSAL_OPS = ["keep", "mutate", "add", "retire"] as const;
export const PROPOSAL_DIRECTIONS: readonly Direction[] = ["horizon", "uncertainty", "precision", "diversify"];
export const EVIDENCE_KINDS = ["cluster", "rollout", "stat"] as const;
/** Flag of an item that cites no evidence (allowed, but shown in the UI). */
export const NO_EVIDENCE_FLAG = "no_evidence";

export interface ItemError {
  /** index of the item in the list that was validated */
  item: number;
  /** dot-joined path from the list, e.g. "items.3.config.size" */
  path: string;
  message: string;
}

export interface ValidateItemsOptions {
  /** overrides each item's proposer (the LLM's raw items carry none) */
  proposer?: ProposedItem["proposer"];
}

export interface ValidatedItems {
  /** the items that passed, normalised, in input order */
  items: ProposedItem[];
  errors: ItemError[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const nonEmptyString = (value: unknown): value is string => typeof value === "string" && value.trim() !== "";

/** "items.3" + "config.size" -> "items.3.config.size"; the family's root path maps to the config itself. */
function configPath(base: string, fieldPath: string): string {
  return fieldPath === ROOT_PATH || fieldPath === "" ? `${base}.config` : `${base}.config.${fieldPath}`;
}

function listIds(ids: readonly string[], max = 12): string {
  if (ids.length === 0) return "(none)";
  const shown = ids.slice(0, max).join(", ");
  return ids.length > max ? `${shown}, ... (${ids.length} in all)` : shown;
}

/**
 * Check proposed items against the engineer input: ops and fields, keep/retire keys in the
 * population, mutate parents in the population, new configs parse and validate as "valid",
 * no config hash already known or repeated, evidence refs that exist in the summary. Items
 * citing nothing are flagged "no_evidence" (not an error). Returns the items that passed and
 * every error with its path.
 */
export function validateItems(
  input: EngineerInput,
  items: readonly unknown[] | readonly ProposedItem[],
  opts: ValidateItemsOptions = {},
): ValidatedItems {
  const { family, population, summary, knownHashes } = input;
  const members = new Map(population.map((m) => [m.key, m]));
  const populationHashes = new Set(population.map((m) => m.configHash));
  const poolHashes = new Map((input.taskPool ?? []).map((m) => [m.key, m.configHash]));
  const clusterIds = summary.failures.clusters.map((c) => c.id);
  const clusterSet = new Set(clusterIds);
  const rolloutIds = summary.failures.clusters.flatMap((c) => c.exemplarRolloutIds);
  const rolloutSet = new Set(rolloutIds);

  const errors: ItemError[] = [];
  const valid: ProposedItem[] = [];
  const decided = new Map<string, number>(); // population key -> index of its keep/retire item
  const newKeys = new Map<string, number>();
  const hashes = new Map<string, number>();

  items.forEach((raw, index) => {
    const base = `items.${index}`;
    const before = errors.length;
    const fail = (path: string, message: string) => errors.push({ item: index, path, message });

    if (!isRecord(raw)) {
      fail(base, "Each item must be an object with op, environmentKey, rationale and evidence.");
      return;
    }
    const op = raw.op;
    if (typeof op !== "string" || !(PROPOSAL_OPS as readonly string[]).includes(op)) {
      fail(`${base}.op`, `op must be one of ${PROPOSAL_OPS.join(", ")} (got ${JSON.stringify(op) ?? "nothing"}).`);
      return;
    }
    const typedOp = op as ProposedItem["op"];
    const key = raw.environmentKey;
    let config: FamilyConfig | undefined;

    if (typedOp === "keep" || typedOp === "retire") {
      if (!nonEmptyString(key)) {
        fail(`${base}.environmentKey`, `A ${typedOp} item needs the environmentKey of a population member.`);
      } else if (!members.has(key)) {
        fail(`${base}.environmentKey`, `"${key}" is not in the current population: ${typedOp} only environments listed in the population.`);
      } else if (decided.has(key)) {
        fail(
          `${base}.environmentKey`,
          `"${key}" already has a keep or retire item (items.${decided.get(key)}): give each environment exactly one.`,
        );
      } else {
        decided.set(key, index);
        config = members.get(key)!.config;
      }
    } else {
      if (!nonEmptyString(key)) {
        fail(`${base}.environmentKey`, `A ${typedOp} item needs a new environmentKey.`);
      } else if (members.has(key)) {
        fail(`${base}.environmentKey`, `"${key}" is already a population member: a new environment needs a new key.`);
      } else if (newKeys.has(key)) {
        fail(`${base}.environmentKey`, `"${key}" is used by items.${newKeys.get(key)} too: keys must be unique.`);
      } else {
        newKeys.set(key, index);
      }
      const parentKey = raw.parentKey;
      if (typedOp === "mutate" && !nonEmptyString(parentKey)) {
        fail(`${base}.parentKey`, "A mutate item needs the parentKey of a population member.");
      } else if (parentKey !== undefined && parentKey !== null && (!nonEmptyString(parentKey) || !members.has(parentKey))) {
        fail(
          `${base}.parentKey`,
          `Parent ${JSON.stringify(parentKey)} is not in the current population: use a key from the population list.`,
        );
      }
      const second = raw.secondParentKey;
      if (second !== undefined && second !== null && (!nonEmptyString(second) || !members.has(second))) {
        fail(`${base}.secondParentKey`, `Second parent ${JSON.stringify(second)} is not in the current population.`);
      }

      if (!isRecord(raw.config)) {
        fail(`${base}.config`, `A ${typedOp} item needs a config object with every field of ${family.id}.`);
      } else {
        const parsed = parseConfig(family, raw.config);
        if (!parsed.ok) {
          for (const e of parsed.errors) fail(configPath(base, e.path), e.message);
        } else {
          const result = family.validate(parsed.config);
          if (result.state !== "valid") {
            const reasons =
              result.errors.length > 0 ? result.errors : [{ path: ROOT_PATH, message: "the family validator rejected the config" }];
            for (const e of reasons) fail(configPath(base, e.path), `${result.state}: ${e.message}`);
          } else {
            const hash = configHash(parsed.config);
            // an unused imported task of the pool rejoins under its own key and config
            const rejoins = typedOp === "add" && poolHashes.get(key as string) === hash;
            if (!rejoins && (knownHashes.has(hash) || populationHashes.has(hash))) {
              fail(`${base}.config`, "This config already exists in the project (same config hash): change at least one field.");
            } else if (hashes.has(hash)) {
              fail(`${base}.config`, `Same config as items.${hashes.get(hash)}: every new environment must differ.`);
            } else {
              hashes.set(hash, index);
              config = parsed.config;
            }
          }
        }
      }
    }

    let direction: Direction | undefined;
    if (raw.direction !== undefined && raw.direction !== null) {
      if (typeof raw.direction === "string" && (PROPOSAL_DIRECTIONS as readonly string[]).includes(raw.direction))
        direction = raw.direction as Direction;
      else fail(`${base}.direction`, `direction must be one of ${PROPOSAL_DIRECTIONS.join(", ")} (got ${JSON.stringify(raw.direction)}).`);
    }

    if (!nonEmptyString(raw.rationale)) fail(`${base}.rationale`, "Give a one-sentence rationale.");

    let predictedSuccess: number | undefined;
    if (raw.predictedSuccess !== undefined && raw.predictedSuccess !== null) {
      if (
        typeof raw.predictedSuccess === "number" &&
        Number.isFinite(raw.predictedSuccess) &&
        raw.predictedSuccess >= 0 &&
        raw.predictedSuccess <= 1
      ) {
        predictedSuccess = raw.predictedSuccess;
      } else {
        fail(`${base}.predictedSuccess`, `predictedSuccess must be a number in [0, 1] (got ${JSON.stringify(raw.predictedSuccess)}).`);
      }
    }

    const evidence: EvidenceRef[] = [];
    if (raw.evidence !== undefined && raw.evidence !== null && !Array.isArray(raw.evidence)) {
      fail(`${base}.evidence`, "evidence must be a list of { kind, ref } objects.");
    } else {
      (Array.isArray(raw.evidence) ? raw.evidence : []).forEach((ref: unknown, j: number) => {
        const path = `${base}.evidence.${j}`;
        if (!isRecord(ref)) return fail(path, "Each evidence ref must be an object { kind, ref, note? }.");
        const kind = ref.kind;
        if (typeof kind !== "string" || !(EVIDENCE_KINDS as readonly string[]).includes(kind)) {
          return fail(`${path}.kind`, `kind must be one of ${EVIDENCE_KINDS.join(", ")} (got ${JSON.stringify(kind) ?? "nothing"}).`);
        }
        if (!nonEmptyString(ref.ref)) return fail(`${path}.ref`, `A ${kind} ref needs a non-empty ref.`);
        if (kind === "cluster" && !clusterSet.has(ref.ref)) {
          return fail(`${path}.ref`, `Cluster "${ref.ref}" does not exist in the summary: cite one of ${listIds(clusterIds)}.`);
        }
        if (kind === "rollout" && !rolloutSet.has(ref.ref)) {
          return fail(`${path}.ref`, `Rollout "${ref.ref}" is not an exemplar rollout of the summary: cite one of ${listIds(rolloutIds)}.`);
        }
        if (ref.note !== undefined && ref.note !== null && typeof ref.note !== "string")
          return fail(`${path}.note`, "note must be a string.");
        evidence.push({
          kind: kind as EvidenceRef["kind"],
          ref: ref.ref,
          ...(typeof ref.note === "string" && ref.note !== "" ? { note: ref.note } : {}),
        });
      });
    }

    const proposer = opts.proposer ?? (raw.proposer === "heuristic" || raw.proposer === "llm" ? raw.proposer : undefined);
    if (proposer === undefined) fail(`${base}.proposer`, 'proposer must be "heuristic" or "llm".');

    if (errors.length > before || config === undefined || proposer === undefined) return;

    const flags = Array.isArray(raw.flags) ? raw.flags.filter((f): f is string => typeof f === "string") : [];
    if (evidence.length === 0 && !flags.includes(NO_EVIDENCE_FLAG)) flags.push(NO_EVIDENCE_FLAG);
    const item: ProposedItem = {
      op: typedOp,
      environmentKey: key as string,
      config,
      rationale: (raw.rationale as string).trim(),
      evidence,
      proposer,
    };
    if ((typedOp === "mutate" || typedOp === "add") && nonEmptyString(raw.parentKey)) item.parentKey = raw.parentKey;
    if ((typedOp === "mutate" || typedOp === "add") && nonEmptyString(raw.secondParentKey)) item.secondParentKey = raw.secondParentKey;
    if (direction) item.direction = direction;
    // set by the LLM answer's expansion after the edits applied (never taken from the model's text as such)
    if (typedOp === "mutate" && isRecord(raw.taskEdits)) item.taskEdits = raw.taskEdits as unknown as ProposedItem["taskEdits"];
    if (predictedSuccess !== undefined) item.predictedSuccess = predictedSuccess;
    if (typedOp !== "retire" && typeof raw.weight === "number" && Number.isFinite(raw.weight) && raw.weight > 0 && raw.weight <= 100)
      item.weight = raw.weight;
    if (flags.length > 0) item.flags = flags;
    valid.push(item);
  });

  return { items: valid, errors };
}
