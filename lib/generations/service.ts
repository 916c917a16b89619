/** Generations: numbered populations of environments, created through the API or by materializing a proposal. */
import { z } from "zod";
import type { Db, Queryable } from "@/lib/db/client";
import type { generations } from "@/lib/db/schema";
import { Conflict, Forbidden, Invalid, NotFound, parseOrThrow, type ErrorDetail } from "@/lib/errors";
import { configHash } from "@/lib/families/hash";
import { parseConfig } from "@/lib/families/parse";
import type { FamilyDefinition } from "@/lib/families/types";
import { recordAudit } from "@/lib/audit";
import type { ProjectRow } from "@/lib/projects/service";
import {
  environmentsByKey,
  generationAt,
  generationIdAt,
  generationMemberIds,
  generationMembers,
  generationsOfProject,
  insertEnvironments,
  insertGeneration,
  insertMembership,
  linkParents,
  lockProjectGenerations,
  maxGenerationIndex,
} from "./repository";

export const environmentKeySchema = z
  .string()
  .min(1, "is required")
  .max(200, "is longer than 200 characters")
  .regex(/^[^\s/?#]+$/, "may not contain spaces, '/', '?' or '#'");

export const createGenerationSchema = z.strictObject({
  index: z.number().int().min(0).optional(),
  parentIndex: z.number().int().min(0).optional(),
  status: z.enum(["draft", "active", "approved"]).optional(),
  trainingSteps: z.number().int().min(0).optional(),
  mixWeight: z.number().min(0).optional(),
  environments: z
    .array(
      z.strictObject({
        key: environmentKeySchema,
        config: z.record(z.string(), z.unknown()),
        parentKey: environmentKeySchema.optional(),
        weight: z.number().finite().min(0).optional(),
        op: z.enum(["seed", "keep", "mutate", "add", "crossover"]).optional(),
        direction: z.enum(["horizon", "uncertainty", "precision", "diversify"]).optional(),
        rationale: z.string().max(2000).optional(),
      }),
    )
    .max(100_000, "holds more than 100,000 environments"),
});

export type GenerationRow = typeof generations.$inferSelect;

/** Validate configs against the family, naming `environments.<i>.config.<field>` on failure. */
export function validateConfigs(family: FamilyDefinition, items: { config: unknown }[], prefix = "environments") {
  const details: ErrorDetail[] = [];
  const configs = items.map((item, i) => {
    const parsed = parseConfig(family, item.config);
    if (!parsed.ok) {
      for (const e of parsed.errors)
        details.push({ path: `${prefix}.${i}.config${e.path && e.path !== "(root)" ? "." + e.path : ""}`, message: e.message });
      return null;
    }
    return parsed.config;
  });
  return { configs, details };
}

/**
 * Create a generation with its environments in one transaction (nothing is half-written).
 * `mayApprove`: the caller may review (reviewer, admin, the demo's seed); only then can the
 * generation start out `approved`, so an ingest key cannot skip review (it gets `draft` or `active`).
 */
export async function createGeneration(
  db: Db,
  project: ProjectRow,
  family: FamilyDefinition,
  body: unknown,
  actor: string,
  source = "import",
  mayApprove = false,
) {
  const input = parseOrThrow(createGenerationSchema, body);
  if (input.status === "approved" && !mayApprove) {
    throw new Forbidden(
      "Only a reviewer or an admin can create an approved generation: send status 'draft' or 'active' and have it reviewed.",
      [{ path: "status", message: "'approved' needs the reviewer or admin role" }],
    );
  }
  const seen = new Map<string, number>();
  const dupes: ErrorDetail[] = [];
  input.environments.forEach((e, i) => {
    if (seen.has(e.key))
      dupes.push({ path: `environments.${i}.key`, message: `duplicates environments.${seen.get(e.key)}.key ('${e.key}')` });
    else seen.set(e.key, i);
  });
  if (dupes.length) throw new Invalid(`Environment keys must be unique within a generation: ${dupes[0].path} ${dupes[0].message}.`, dupes);
  const { configs, details } = validateConfigs(family, input.environments);
  if (details.length)
    throw new Invalid(`A config does not fit the ${family.id} family: ${details[0].path}: ${details[0].message}`, details);

  return db.transaction(async (tx) => {
    await lockProjectGenerations(tx, project.id);
    const maxIndex = await maxGenerationIndex(tx, project.id);
    const index = input.index ?? (maxIndex === null ? 0 : maxIndex + 1);
    if ((await generationIdAt(tx, project.id, index)) !== undefined)
      throw new Conflict(`Generation ${index} exists already in '${project.slug}'.`, [{ path: "index", message: "is taken" }]);
    if (input.parentIndex !== undefined && (await generationIdAt(tx, project.id, input.parentIndex)) === undefined) {
      throw new Invalid(`parentIndex ${input.parentIndex} is not a generation of '${project.slug}'.`, [
        { path: "parentIndex", message: "unknown generation" },
      ]);
    }

    const items = input.environments.map((e, i) => ({
      ...e,
      config: configs[i]!,
      hash: configHash(configs[i]!),
      op: e.op === "crossover" ? "crossover" : undefined,
    }));
    const envIds = await upsertEnvironments(tx, project, items);

    const gen = await insertGeneration(tx, {
      projectId: project.id,
      index,
      status: input.status ?? "active",
      source,
      parentIndex: input.parentIndex ?? maxIndex ?? null,
      trainingSteps: input.trainingSteps,
      mixWeight: input.mixWeight,
    });
    // an environment that was in the previous generation is kept (the same row), not a copy
    const previous = new Set<number>();
    if (maxIndex !== null) {
      const previousId = await generationIdAt(tx, project.id, input.parentIndex ?? maxIndex);
      if (previousId !== undefined) for (const id of await generationMemberIds(tx, previousId)) previous.add(id);
    }
    await insertMembership(
      tx,
      gen.id,
      items.map((e) => {
        const environmentId = envIds.get(e.key)!;
        const op = e.op ?? (e.parentKey ? "mutate" : previous.has(environmentId) ? "keep" : index === 0 ? "seed" : "add");
        return { environmentId, weight: e.weight ?? 1, op, direction: e.direction ?? null, rationale: e.rationale ?? null };
      }),
    );
    await recordAudit(tx, {
      projectId: project.id,
      actor,
      action: "generation.create",
      entity: "generation",
      entityId: index,
      after: { index, status: gen.status, environments: items.length },
    });
    return { generation: gen, environments: items.length };
  });
}

/** Insert environments that are new, reuse identical ones, 409 on a known key with a different config. */
export async function upsertEnvironments(
  tx: Queryable,
  project: ProjectRow,
  items: { key: string; config: Record<string, unknown>; hash: string; parentKey?: string; op?: string; direction?: string | null }[],
): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  const keys = items.map((i) => i.key);
  const parentKeys = items.map((i) => i.parentKey).filter((k): k is string => !!k);
  const lookup = [...new Set([...keys, ...parentKeys])];
  const known = new Map<string, { id: number; hash: string }>();
  for (const r of await environmentsByKey(tx, project.id, lookup)) known.set(r.key, { id: r.id, hash: r.hash });
  const conflicts: ErrorDetail[] = [];
  const fresh: typeof items = [];
  items.forEach((item, i) => {
    const k = known.get(item.key);
    if (k && k.hash !== item.hash)
      conflicts.push({ path: `environments.${i}.key`, message: `'${item.key}' is known with a different config` });
    else if (k) ids.set(item.key, k.id);
    else fresh.push(item);
  });
  if (conflicts.length) {
    throw new Conflict(
      `Environment '${conflicts[0].message.split("'")[1]}' already exists with a different config; environments are ` +
        `immutable, so give the new config a new key.`,
      conflicts,
    );
  }
  const freshKeys = new Set(fresh.map((f) => f.key));
  const badParents: ErrorDetail[] = [];
  items.forEach((item, i) => {
    if (item.parentKey && !known.has(item.parentKey) && !freshKeys.has(item.parentKey)) {
      badParents.push({ path: `environments.${i}.parentKey`, message: `'${item.parentKey}' is not an environment of this project` });
    }
  });
  if (badParents.length) throw new Invalid(`Unknown parentKey: ${badParents[0].message}.`, badParents);

  const inserted = await insertEnvironments(
    tx,
    fresh.map((e) => ({
      projectId: project.id,
      key: e.key,
      config: e.config,
      configHash: e.hash,
      op: e.op ?? (e.parentKey ? "mutate" : "seed"),
      direction: e.direction ?? null,
    })),
  );
  for (const [key, id] of inserted) ids.set(key, id);
  // parents resolve after insertion so a parent may arrive in the same body; one statement for all
  await linkParents(
    tx,
    fresh.filter((f) => f.parentKey).map((f) => [ids.get(f.key)!, ids.get(f.parentKey!) ?? known.get(f.parentKey!)!.id]),
  );
  return ids;
}

/** A project's generation by index, or 404. */
export async function getGeneration(db: Db, project: ProjectRow, index: number): Promise<GenerationRow> {
  const g = await generationAt(db, project.id, index);
  if (!g) throw new NotFound(`Generation ${index} does not exist in '${project.slug}'.`);
  return g;
}

/** All generations of a project, oldest first. */
export async function listGenerationRows(db: Db, projectId: number) {
  return generationsOfProject(db, projectId);
}

/** A page of a generation's environments ordered by key, with a cursor. */
export async function listGenerationEnvironments(db: Db, generationId: number, cursor: string | undefined, limit: number) {
  const rows = await generationMembers(db, generationId, { after: cursor, limit: limit + 1 });
  const page = rows.slice(0, limit);
  return { rows: page, nextCursor: rows.length > limit ? page[page.length - 1].key : null };
}
