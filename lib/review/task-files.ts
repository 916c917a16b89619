/**
 * Review of an evolved terminal task's files: the per-file before/after of a proposal item (its
 * parent's files against the child's, the engineer's edits or the reviewer's), the task.toml
 * changes key by key, and the reviewer's inline edits (whole files), validated like the engineer's
 * (they must apply, task.toml must follow Harbor's rules, tests/ must stay), audited and undoable.
 */
import { parse as parseToml } from "smol-toml";
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { Conflict, Invalid, NotFound, parseOrThrow } from "@/lib/errors";
import type { Principal } from "@/lib/auth/principal";
import { requireScope } from "@/lib/auth/principal";
import { recordAudit } from "@/lib/audit";
import { getFamily } from "@/lib/family-store";
import { applyTaskEdits, evolvedConfig, type ParentTaskFile, type TaskEdits } from "@/lib/tasks/edits";
import { taskFilesOf } from "@/lib/tasks/evolve";
import { taskTomlChanges } from "@/lib/tasks/materialize";
import { applyTaskTomlFields } from "@/lib/tasks/task-toml";
import { environmentConfigByKey } from "@/lib/generations/repository";
import { checkEditedConfig } from "./decisions";
import { itemForTaskFiles, setItemTaskEdits } from "./repository";

export const taskFileEditSchema = z.strictObject({
  files: z
    .array(
      z.strictObject({
        path: z.string().min(1, "names a file of the task").max(1000),
        content: z.string().max(1024 * 1024, "is over 1 MB"),
      }),
    )
    .min(1, "names at least one file")
    .max(50),
});

/** One file of the task diff: its text in the parent and in the child (null: absent or binary). */
export interface TaskFileDiff {
  path: string;
  before: string | null;
  after: string;
}

/** The per-file diff of an item and its task.toml changes. */
export interface TaskDiffView {
  itemId: string;
  parentKey: string | null;
  /** whose files are shown: the reviewer's inline edits, the engineer's edits, or the config's task.toml fields */
  source: "reviewer" | "engineer" | "config" | "none";
  /** the reviewer may edit files (a terminal mutate item with parent files, proposal not materialized) */
  editable: boolean;
  files: TaskFileDiff[];
  taskToml: { key: string; before: unknown; after: unknown }[];
  /** the edits no longer apply (the parent changed): shown instead of a diff */
  errors: { path: string; message: string }[];
}

async function loadItem(db: Db, proposalId: string, itemId: string) {
  if (!z.uuid().safeParse(proposalId).success || !z.uuid().safeParse(itemId).success)
    throw new NotFound(`Item ${itemId} of proposal ${proposalId} does not exist.`);
  const found = await itemForTaskFiles(db, proposalId, itemId);
  if (!found) throw new NotFound(`Item ${itemId} of proposal ${proposalId} does not exist.`);
  return found;
}

function flatten(value: unknown, prefix = "", out: Record<string, unknown> = {}): Record<string, unknown> {
  if (value && typeof value === "object" && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else if (prefix) out[prefix] = value;
  return out;
}

/** task.toml keys whose values differ between two task.toml texts. */
export function taskTomlKeyChanges(before: string | null, after: string | null): { key: string; before: unknown; after: unknown }[] {
  const read = (t: string | null) => {
    try {
      return t ? flatten(parseToml(t)) : {};
    } catch {
      return {};
    }
  };
  const a = read(before);
  const b = read(after);
  return [...new Set([...Object.keys(a), ...Object.keys(b)])]
    .filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]))
    .sort()
    .map((key) => ({ key, before: a[key] ?? null, after: b[key] ?? null }));
}

function diffOf(parent: ParentTaskFile[], edits: TaskEdits): Pick<TaskDiffView, "files" | "taskToml" | "errors"> {
  const applied = applyTaskEdits(parent, edits);
  if (!applied.ok) return { files: [], taskToml: [], errors: applied.errors };
  const toml = applied.changed.find((c) => c.path === "task.toml");
  return {
    files: applied.changed.map((c) => ({ path: c.path, before: c.before, after: c.after })),
    taskToml: toml ? taskTomlKeyChanges(toml.before, toml.after) : [],
    errors: [],
  };
}

/** GET .../items/{itemId}/files: the item's per-file diff against its parent task and its task.toml changes. */
export async function itemTaskDiff(db: Db, proposalId: string, itemId: string, principal: Principal): Promise<TaskDiffView> {
  const { item, proposal, project } = await loadItem(db, proposalId, itemId);
  requireScope(principal, "projects:read", project.id);
  const empty: TaskDiffView = { itemId, parentKey: item.parentKey, source: "none", editable: false, files: [], taskToml: [], errors: [] };
  if (project.familyId !== "terminal-task" || !item.parentKey || item.op !== "mutate") return empty;
  const parent = await taskFilesOf(db, project.id, item.parentKey);
  if (!parent.length) return empty;
  const editable = proposal.materializedGeneration === null;
  const edits = (item.editedTaskEdits ?? item.taskEdits) as TaskEdits | null;
  if (edits) return { ...empty, source: item.editedTaskEdits ? "reviewer" : "engineer", editable, ...diffOf(parent, edits) };
  // a child by config fields only (the heuristic's timeout steps): its task.toml as materialize will write it
  const parentConfig = await environmentConfigByKey(db, project.id, item.parentKey);
  const changes = taskTomlChanges(
    (parentConfig ?? {}) as Record<string, unknown>,
    (item.editedConfig ?? item.config) as Record<string, unknown>,
  );
  const toml = parent.find((f) => f.path === "task.toml");
  if (!toml?.text || Object.keys(changes).length === 0) return { ...empty, source: "config", editable };
  const after = applyTaskTomlFields(toml.text, changes);
  return {
    ...empty,
    source: "config",
    editable,
    files: [{ path: "task.toml", before: toml.text, after }],
    taskToml: taskTomlKeyChanges(toml.text, after),
  };
}

/**
 * PUT .../items/{itemId}/files: the reviewer's versions of whole files, on top of the item's
 * current edits; validated (apply, task.toml, tests/), the child's config follows the files; audited.
 */
export async function editItemTaskFiles(db: Db, proposalId: string, itemId: string, body: unknown, principal: Principal) {
  const input = parseOrThrow(taskFileEditSchema, body);
  const { item, proposal, project } = await loadItem(db, proposalId, itemId);
  requireScope(principal, "proposals:review", project.id);
  if (proposal.materializedGeneration !== null)
    throw new Conflict(`Proposal ${proposalId} was materialized into generation ${proposal.materializedGeneration}; its items are final.`);
  if (project.familyId !== "terminal-task" || item.op !== "mutate" || !item.parentKey)
    throw new Conflict("Only a mutated terminal task's files can be edited: this item has no parent task.");
  const parent = await taskFilesOf(db, project.id, item.parentKey);
  if (!parent.length) throw new Conflict(`The parent task '${item.parentKey}' has no files to edit.`);
  const current = ((item.editedTaskEdits ?? item.taskEdits) as TaskEdits | null) ?? { files: [], taskToml: {} };
  const replaced = new Set(input.files.map((f) => f.path));
  // a reviewer's whole file replaces the earlier whole-file version of that path; the engineer's search/replace edits before it stay
  const next: TaskEdits = {
    files: [...current.files.filter((e) => !("content" in e && replaced.has(e.path))), ...input.files],
    taskToml: current.taskToml,
  };
  const applied = applyTaskEdits(parent, next);
  if (!applied.ok)
    throw new Invalid(
      `The edited files break the task: ${applied.errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`,
      applied.errors.map((e) => ({ path: e.path, message: e.message })),
    );
  const parentConfig = await environmentConfigByKey(db, project.id, item.parentKey);
  const family = await getFamily(db, project.familyId);
  const checked = checkEditedConfig(
    family,
    evolvedConfig((parentConfig ?? {}) as Record<string, unknown>, applied.fields, applied.filesDigest),
    "config",
  );
  if (!checked.config) throw new Invalid("The edited task.toml gives a config the family refuses.", checked.details);
  await db.transaction(async (tx) => {
    await setItemTaskEdits(tx, itemId, { editedTaskEdits: next, editedConfig: checked.config });
    await recordAudit(tx, {
      projectId: project.id,
      actor: principal.actor,
      action: "proposal_item.edit_files",
      entity: "proposal_item",
      entityId: itemId,
      before: { taskEdits: item.editedTaskEdits ?? item.taskEdits, config: item.editedConfig ?? item.config },
      after: { taskEdits: next, config: checked.config, paths: [...replaced] },
    });
  });
  return itemTaskDiff(db, proposalId, itemId, principal);
}

/** DELETE .../items/{itemId}/files: undo the reviewer's file edits (back to the engineer's), audited. */
export async function revertItemTaskFiles(db: Db, proposalId: string, itemId: string, principal: Principal) {
  const { item, proposal, project } = await loadItem(db, proposalId, itemId);
  requireScope(principal, "proposals:review", project.id);
  if (proposal.materializedGeneration !== null)
    throw new Conflict(`Proposal ${proposalId} was materialized into generation ${proposal.materializedGeneration}; its items are final.`);
  if (item.editedTaskEdits === null) throw new Conflict("This item's files were not edited by a reviewer: there is nothing to undo.");
  await db.transaction(async (tx) => {
    await setItemTaskEdits(tx, itemId, { editedTaskEdits: null, editedConfig: null });
    await recordAudit(tx, {
      projectId: project.id,
      actor: principal.actor,
      action: "proposal_item.revert_files",
      entity: "proposal_item",
      entityId: itemId,
      before: { taskEdits: item.editedTaskEdits, config: item.editedConfig },
      after: { taskEdits: item.taskEdits, config: item.config },
    });
  });
  return itemTaskDiff(db, proposalId, itemId, principal);
}
