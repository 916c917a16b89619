/**
 * What a key's role cannot do or see, over HTTP on a real Postgres: an ingest key cannot create
 * an approved generation (review cannot be skipped; the audit records the status), and viewers
 * see targets without their secret-bearing config (env, headers, credentials in URLs), in the
 * API and in the audit they can read.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBuiltinFamily } from "@/lib/families/registry";
import { createRng } from "@/lib/families/rng";
import { EnvForgeClient, ApiError } from "@/cli/client";
import { startApi, stopApi, clientWithRole, createProjectWith, type TestDb, type TestServer } from "./api-harness";

const TOKEN = "test-bootstrap-token-leastpriv-01";
const SECRET_HEADER = "Bearer hdr-0123456789abcdef";
const SECRET_ENV = "env-value-fedcba9876543210";
const URL_PASSWORD = "urlpass-5550123";
let db: TestDb;
let server: TestServer;
let admin: EnvForgeClient;
let reviewer: EnvForgeClient;
let ingest: EnvForgeClient;
let viewer: EnvForgeClient;

const family = getBuiltinFamily("frozenlake-mapf")!;
const environments = (prefix: string) =>
  Array.from({ length: 2 }, (_, i) => ({ key: `${prefix}${i}`, config: family.sample(createRng(900 + i)) }));

async function fail(p: Promise<unknown>): Promise<ApiError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  if (!(e instanceof ApiError)) throw new Error(`expected an API error, got ${String(e)}`);
  return e;
}

type AuditEvent = { action: string; actor: string; after?: Record<string, unknown>; before?: Record<string, unknown> };
async function audit(client: EnvForgeClient): Promise<AuditEvent[]> {
  const res = await client.request<{ events: AuditEvent[] }>("GET", "/api/v1/projects/lp/audit");
  return res.events;
}

beforeAll(async () => {
  ({ db, server, admin } = await startApi(TOKEN));
  reviewer = await clientWithRole(db, server, "reviewer");
  ingest = await clientWithRole(db, server, "ingest");
  viewer = await clientWithRole(db, server, "viewer");
  await createProjectWith(admin, { slug: "lp", name: "Least privilege" });
});
afterAll(async () => {
  await stopApi({ server, db });
});

describe("review cannot be skipped", () => {
  it("an ingest key creates draft or active generations, never approved", async () => {
    const refused = await fail(
      ingest.request("POST", "/api/v1/projects/lp/generations", { json: { status: "approved", environments: environments("a") } }),
    );
    expect(refused.status).toBe(403);
    expect(JSON.stringify(refused.body)).toContain('"path":"status"');
    const generations = await admin.request<{ generations: unknown[] }>("GET", "/api/v1/projects/lp/generations");
    expect(generations.generations).toHaveLength(0); // nothing half-written

    await ingest.request("POST", "/api/v1/projects/lp/generations", { json: { status: "draft", environments: environments("a") } });
    await ingest.request("POST", "/api/v1/projects/lp/generations", { json: { environments: environments("b") } });
    await reviewer.request("POST", "/api/v1/projects/lp/generations", { json: { status: "approved", environments: environments("c") } });
    const statuses = (await audit(admin)).filter((e) => e.action === "generation.create").map((e) => [e.actor, e.after?.status]);
    expect(statuses).toEqual(
      expect.arrayContaining([
        ["key:ingest", "draft"],
        ["key:ingest", "active"],
        ["key:reviewer", "approved"],
      ]),
    );
  });
});

describe("least exposure", () => {
  it("viewers and reviewers see targets without env, headers or URL credentials; admins see them", async () => {
    await admin
      .request("POST", "/api/v1/projects/lp/targets", {
        json: {
          name: "hook",
          kind: "trainer",
          adapter: "webhook",
          config: { url: `https://bot:${URL_PASSWORD}@trainer.lab.org/hook`, headers: { Authorization: SECRET_HEADER } },
          secret: "hmac-secret-0000",
        },
      })
      .catch(async (e: unknown) => {
        // without ENVFORGE_SECRET_KEY the secret cannot be stored: use an environment variable instead
        if (!(e instanceof ApiError) || e.status !== 422) throw e;
        await admin.request("POST", "/api/v1/projects/lp/targets", {
          json: {
            name: "hook",
            kind: "trainer",
            adapter: "webhook",
            config: { url: `https://bot:${URL_PASSWORD}@trainer.lab.org/hook`, headers: { Authorization: SECRET_HEADER } },
            secretEnv: "HOOK_SECRET",
          },
        });
      });
    await admin.request("POST", "/api/v1/projects/lp/targets", {
      json: {
        name: "ray",
        kind: "trainer",
        adapter: "ray",
        config: {
          address: "http://ray-head:8265",
          entrypoint: "python train.py",
          runtime_env: { env_vars: { WANDB_API_KEY: SECRET_ENV } },
        },
      },
    });

    const full = JSON.stringify(await admin.request("GET", "/api/v1/projects/lp/targets"));
    expect(full).toContain(SECRET_HEADER);
    expect(full).toContain(SECRET_ENV);
    for (const client of [viewer, reviewer, ingest]) {
      const shown = await client.request<{ targets: { name: string; config: Record<string, unknown> }[] }>(
        "GET",
        "/api/v1/projects/lp/targets",
      );
      const text = JSON.stringify(shown);
      for (const secret of [SECRET_HEADER, SECRET_ENV, URL_PASSWORD]) expect(text).not.toContain(secret);
      const hook = shown.targets.find((t) => t.name === "hook")!;
      expect(hook.config).toMatchObject({ url: "https://(hidden)@trainer.lab.org/hook", headers: "(hidden)" });
      expect(shown.targets.find((t) => t.name === "ray")!.config).toMatchObject({
        address: "http://ray-head:8265",
        runtime_env: { env_vars: "(hidden)" },
      });
    }
    const viewerAudit = JSON.stringify(await audit(viewer));
    expect(viewerAudit).toContain("target.create");
    for (const secret of [SECRET_HEADER, SECRET_ENV, URL_PASSWORD]) expect(viewerAudit).not.toContain(secret);
  });
});
