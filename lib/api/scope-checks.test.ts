/**
 * One place for each permission check (docs/ARCHITECTURE.md, "Permission checks"): apiRoute checks
 * the scope of `slug` and `global` routes, pages check through the page guard, and a service calls
 * requireScope only where it loads an entity whose project no route could know (the loaders of
 * `entity` routes, which pages call too). A requireScope in any other module fails here: either it
 * repeats a route's guard, or it is a new entity loader to list below (and in the doc) on purpose.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const repo = path.resolve(import.meta.dirname, "../..");

/** The modules that load an entity and check its project's scope, with the loaders that do it. */
const ENTITY_LOADERS: Record<string, string> = {
  "lib/projects/service.ts": "getProjectFor: the project itself (apiRoute and the page guard call it)",
  "lib/proposals/view.ts": "getProposal",
  "lib/review/decisions.ts": "reviewProposal, addComment, materializeProposal (by proposal id)",
  "lib/review/history.ts": "itemHistory, undoItemChange (by proposal id)",
  "lib/review/task-files.ts": "itemTaskDiff, editItemTaskFiles, revertItemTaskFiles (by proposal id)",
  "lib/annotations/service.ts": "rolloutFor (by rollout id)",
  "lib/rollouts/read.ts": "readRollout (by rollout id)",
  "lib/rollouts/turns.ts": "authorize (by rollout id)",
  "lib/rollouts/timeline.ts": "rolloutTimeline (by rollout id)",
  "lib/dispatch/service.ts": "getDispatch, cancelDispatch, dispatchFor (by dispatch id)",
  "lib/dispatch/manage.ts": "retryDispatch (by dispatch id)",
  "lib/ingest/imports.ts": "getImport (by import id)",
};

function sources(dir: string): string[] {
  return fs.readdirSync(path.join(repo, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return sources(rel);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [rel] : [];
  });
}

function callersOfRequireScope(dirs: string[]): string[] {
  return dirs
    .flatMap(sources)
    .filter((file) => /\brequireScope\(/.test(fs.readFileSync(path.join(repo, file), "utf8")))
    .map((file) => file.split(path.sep).join("/"))
    .sort();
}

describe("permission checks", () => {
  it("services check a scope only where they load an entity (routes and pages check the rest)", () => {
    const callers = callersOfRequireScope(["lib"]).filter(
      (f) => f !== "lib/auth/principal.ts" /* defines it */ && f !== "lib/api/route.ts" /* the route guard */,
    );
    expect(callers).toEqual(Object.keys(ENTITY_LOADERS).sort());
  });

  it("pages and components never call requireScope: pages use the page guard, components mirror scopes with hasScope", () => {
    expect(callersOfRequireScope(["app", "components"])).toEqual([]);
  });
});
