/**
 * Commands and paths are the server's decisions, over HTTP on a real Postgres: `local` targets
 * only when ENVFORGE_LOCAL_TARGETS allows them and never for a project-limited key (creating or
 * dispatching to them); `export` directories only under ENVFORGE_EXPORT_DIR, refusing `..`,
 * absolute paths elsewhere and symlinks out with a 422 naming config.directory.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { getBuiltinFamily } from "@/lib/families/registry";
import { createRng } from "@/lib/families/rng";
import { exportAdapter } from "@/lib/dispatch/adapters/export";
import { localAdapter } from "@/lib/dispatch/adapters/local";
import { DeliveryError, type GenerationPayload } from "@/lib/dispatch/types";
import { EnvForgeClient, ApiError } from "@/cli/client";
import { startApi, stopApi, clientWithRole, createProjectWith, type TestDb, type TestServer } from "./api-harness";

const TOKEN = "test-bootstrap-token-decisions-01";
const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "ef-decisions-")));
const exportRoot = path.join(tmp, "exports");
const outside = path.join(tmp, "outside");
let db: TestDb;
let server: TestServer;
let admin: EnvForgeClient;
let limitedAdmin: EnvForgeClient;
let limitedReviewer: EnvForgeClient;

const family = getBuiltinFamily("frozenlake-mapf")!;
const localTarget = (name: string) => ({
  name,
  kind: "trainer",
  adapter: "local",
  config: { command: [process.execPath, "-e", "0"], workDir: path.join(tmp, "dispatch") },
});
const exportTarget = (name: string, directory: string) => ({ name, kind: "trainer", adapter: "export", config: { directory } });

async function fail(p: Promise<unknown>): Promise<ApiError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  if (!(e instanceof ApiError)) throw new Error(`expected an API error, got ${String(e)}`);
  return e;
}
const fieldsOf = (e: ApiError) => ((e.body as { error?: { details?: { path: string }[] } })?.error?.details ?? []).map((d) => d.path);

beforeAll(async () => {
  delete process.env.ENVFORGE_LOCAL_TARGETS;
  process.env.ENVFORGE_EXPORT_DIR = exportRoot;
  fs.mkdirSync(outside, { recursive: true });
  ({ db, server, admin } = await startApi(TOKEN));
  await createProjectWith(admin, { slug: "sd", name: "Server decisions" });
  const envs = Array.from({ length: 2 }, (_, i) => ({ key: `e${i}`, config: family.sample(createRng(700 + i)) }));
  await admin.request("POST", "/api/v1/projects/sd/generations", { json: { status: "approved", environments: envs } });
  limitedAdmin = await clientWithRole(db, server, "admin", { name: "la", project: "sd" });
  limitedReviewer = await clientWithRole(db, server, "reviewer", { name: "lr", project: "sd" });
});
afterEach(() => {
  delete process.env.ENVFORGE_LOCAL_TARGETS;
});
afterAll(async () => {
  await stopApi({ server, db });
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe("local targets", () => {
  it("are refused while the server does not allow them (the default off the embedded demo)", async () => {
    const off = await fail(admin.request("POST", "/api/v1/projects/sd/targets", { json: localTarget("off") }));
    expect(off.status).toBe(403);
    expect(fieldsOf(off)).toEqual(["adapter"]);
    expect(off.message).toMatch(/ENVFORGE_LOCAL_TARGETS/);
  });

  it("are never for a project-limited key, to create or to dispatch to", async () => {
    process.env.ENVFORGE_LOCAL_TARGETS = "1";
    const limited = await fail(limitedAdmin.request("POST", "/api/v1/projects/sd/targets", { json: localTarget("mine") }));
    expect(limited.status).toBe(403);
    expect(limited.message).toMatch(/limited to one project/);
    await admin.request("POST", "/api/v1/projects/sd/targets", { json: localTarget("trainer") });
    const dispatch = await fail(
      limitedReviewer.request("POST", "/api/v1/projects/sd/generations/0/dispatch", { json: { target: "trainer" } }),
    );
    expect(dispatch.status).toBe(403);
    const list = await admin.request<{ dispatches: unknown[] }>("GET", "/api/v1/projects/sd/dispatches");
    expect(list.dispatches).toHaveLength(0);
  });

  it("do not run when the server stops allowing them after they were created", async () => {
    const payload = { dispatchId: "00000000-0000-4000-8000-00000000000a" } as GenerationPayload;
    const err = await localAdapter.deliver({ payload, config: localTarget("x").config, secret: null, attempt: 1 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DeliveryError);
    expect((err as DeliveryError).retryable).toBe(false);
    expect(fs.existsSync(path.join(tmp, "dispatch"))).toBe(false);
  });
});

describe("export directories", () => {
  it.each([
    ["a parent step", "../outside"],
    ["a parent step that comes back", "runs/../../exports/x"],
    ["an absolute path elsewhere", outside],
    ["the system's folders", "/etc"],
  ])("refuse %s with 422 on config.directory", async (_, directory) => {
    const err = await fail(
      admin.request("POST", "/api/v1/projects/sd/targets", {
        json: exportTarget(`bad-${Math.random().toString(36).slice(2, 8)}`, directory),
      }),
    );
    expect(err.status).toBe(422);
    expect(fieldsOf(err)).toEqual(["config.directory"]);
  });

  it("refuse a symlink that leads out, at creation and at delivery", async () => {
    fs.mkdirSync(exportRoot, { recursive: true });
    fs.symlinkSync(outside, path.join(exportRoot, "escape"));
    const err = await fail(admin.request("POST", "/api/v1/projects/sd/targets", { json: exportTarget("link", "escape/run") }));
    expect(err.status).toBe(422);
    expect(fieldsOf(err)).toEqual(["config.directory"]);
    expect(err.message).toMatch(/symlink/);

    const delivered = await exportAdapter
      .deliver({ payload: {} as GenerationPayload, config: { directory: "escape" }, secret: null, attempt: 1 })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(delivered).toBeInstanceOf(DeliveryError);
    expect(fs.readdirSync(outside)).toEqual([]);
  });

  it("accept folders under the root, relative or absolute", async () => {
    await admin.request("POST", "/api/v1/projects/sd/targets", { json: exportTarget("rel", "runs/verl") });
    await admin.request("POST", "/api/v1/projects/sd/targets", { json: exportTarget("abs", path.join(exportRoot, "abs")) });
    const { dispatchId } = await admin.request<{ dispatchId: string }>("POST", "/api/v1/projects/sd/generations/0/dispatch", {
      json: { target: "rel" },
    });
    expect(dispatchId).toBeTruthy();
  });
});
