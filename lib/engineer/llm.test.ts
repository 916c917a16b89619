import { afterEach, describe, expect, it } from "vitest";
import {
  startFakeOpenAI,
  type FakeOpenAI,
  type FakeOpenAIStep,
  type FakeServerKind,
  type FakeServerOptions,
} from "@/tests/fakes/openai-server";
import { configHash } from "@/lib/families/hash";
import { builtinFamilies } from "@/lib/families/registry";
import { createRng } from "@/lib/families/rng";
import type { FamilyConfig } from "@/lib/families/types";
import { forgetEndpoints } from "./endpoint";
import {
  buildEngineerPrompt,
  llmEngineer,
  llmEngineerConfigFromEnv,
  LlmEngineerError,
  parseProposalText,
  type LlmEngineerConfig,
} from "./llm";
import type { EngineerInput, PopulationMember, StructuredSummary } from "./types";
import { validateItems } from "./validate-items";

const family = builtinFamilies["frozenlake-mapf"];
const API_KEY = "sk-test-SECRET-4f9a2c81d7";

function member(i: number, n: number, s: number, withValidation = true): PopulationMember {
  const config = family.sample(createRng(i));
  const pMax = withValidation ? (family.validate(config).pMax ?? null) : null;
  return {
    key: `g1-${String(i).padStart(4, "0")}`,
    config,
    configHash: configHash(config),
    parentKey: null,
    op: "add",
    direction: null,
    validation: { state: "valid", pMax },
    n,
    s,
    age: 1,
    history: [],
    clusterIds: s < n ? ["c-collide"] : [],
  };
}

function summaryFor(population: PopulationMember[]): StructuredSummary {
  return {
    project: "demo",
    family: family.id,
    generation: 1,
    policy: "policy-a",
    successThreshold: 1,
    behaviour: {
      rollouts: population.reduce((a, m) => a + m.n, 0),
      environments: population.length,
      successRate: 0.4,
      meanReward: 0.4,
      passAtK: { "1": 0.4 },
      turns: { median: 12, p90: 30 },
      outputTokens: { median: 400, p90: 900 },
      infraErrorRate: 0,
      zeroSignalFraction: 0.3,
      learnability: 0.15,
      tiers: { frontier: 2, advanced: 1, core: 1, solved: 2 },
    },
    failures: {
      categories: [{ category: "verifier_failed", count: 20, infra: false }],
      clusters: [
        {
          id: "c-collide",
          category: "verifier_failed",
          signature: "agents collide in a corridor",
          count: 14,
          environments: 3,
          environmentKeys: ["g1-0000", "g1-0001"],
          exemplarRolloutIds: ["r-101", "r-102"],
          excerpt: "agent 2 blocked by agent 1 at (3,4)",
          infra: false,
        },
        {
          id: "c-slip",
          category: "verifier_failed",
          signature: "slipped into a hole",
          count: 6,
          environments: 2,
          environmentKeys: ["g1-0002"],
          exemplarRolloutIds: ["r-201"],
          excerpt: "fell into hole at (5,1)",
          infra: false,
        },
      ],
    },
    environments: { fields: [], solved: [], frontier: [], hopeless: [], unvalidated: [], unsolvable: [] },
    history: { proposals: [], predictions: [] },
    tokenEstimate: 0,
    truncated: [],
  };
}

function inputFor(population: PopulationMember[]): EngineerInput {
  return {
    family,
    summary: summaryFor(population),
    population,
    options: {},
    knownHashes: new Set(population.map((m) => m.configHash)),
    keyPrefix: "g2-",
  };
}

const population = [member(0, 8, 4), member(1, 8, 2), member(2, 8, 5), member(3, 8, 8), member(4, 8, 0), member(5, 8, 8)];
const input = inputFor(population);

/** The smallest seed change of a parent that still validates (and is new). */
function seedEdit(parent: PopulationMember): { seed: number } {
  const base = parent.config.seed as number;
  for (let d = 1; d < 200; d++) {
    const seed = base + d;
    const config = { ...parent.config, seed };
    if (family.validate(config).state === "valid" && !input.knownHashes.has(configHash(config))) return { seed };
  }
  throw new Error("no valid seed edit found");
}
const childEdit = seedEdit(population[0]);
const freshConfig: FamilyConfig = family.sample(createRng(1000));

type RawItem = Record<string, unknown>;

function goodItems(): RawItem[] {
  const cite = (ref: string) => [{ kind: "cluster", ref }];
  return [
    {
      op: "keep",
      environmentKey: "g1-0000",
      direction: "precision",
      rationale: "Half the attempts succeed.",
      evidence: cite("c-collide"),
      predictedSuccess: 0.5,
    },
    {
      op: "keep",
      environmentKey: "g1-0001",
      direction: "precision",
      rationale: "Still learnable.",
      evidence: cite("c-collide"),
      predictedSuccess: 0.3,
    },
    {
      op: "keep",
      environmentKey: "g1-0002",
      direction: "uncertainty",
      rationale: "Slips still hurt.",
      evidence: [{ kind: "rollout", ref: "r-201" }],
      predictedSuccess: 0.6,
    },
    { op: "retire", environmentKey: "g1-0003", rationale: "Solved.", evidence: [{ kind: "stat", ref: "behaviour.tiers.solved" }] },
    { op: "retire", environmentKey: "g1-0004", rationale: "Hopeless.", evidence: cite("c-slip") },
    { op: "retire", environmentKey: "g1-0005", rationale: "Solved." },
    {
      op: "mutate",
      parentKey: "g1-0000",
      edits: childEdit,
      direction: "diversify",
      rationale: "A new map at the same difficulty.",
      evidence: cite("c-collide"),
      predictedSuccess: 0.5,
    },
    {
      op: "add",
      config: freshConfig,
      direction: "diversify",
      rationale: "Coverage.",
      evidence: [{ kind: "stat", ref: "environments.fields.size" }],
      predictedSuccess: 0.4,
    },
  ];
}
const answer = (items: RawItem[]) => JSON.stringify({ items });
const good = (): FakeOpenAIStep => ({ content: answer(goodItems()) });

let server: FakeOpenAI | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  forgetEndpoints();
});

async function start(script: FakeOpenAIStep[], options: FakeServerOptions = {}): Promise<FakeOpenAI> {
  server = await startFakeOpenAI(script, options);
  return server;
}

function configFor(url: string, overrides: Partial<LlmEngineerConfig> = {}): LlmEngineerConfig {
  return {
    baseURL: url,
    apiKey: API_KEY,
    model: "fake-model",
    timeoutMs: 5_000,
    maxRetries: 2,
    priceIn: null,
    priceOut: null,
    ...overrides,
  };
}

async function expectFailure(promise: Promise<unknown>): Promise<LlmEngineerError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LlmEngineerError);
  return err as LlmEngineerError;
}

type SentMessage = { role: string; content: string };
const sentMessages = (fake: FakeOpenAI, request: number) => fake.requests[request].body?.messages as SentMessage[];

describe("llmEngineer", () => {
  it("(a) returns validated items from a good answer, with tokens, latency, attempts and cost recorded", async () => {
    const fake = await start([{ content: answer(goodItems()), usage: { prompt_tokens: 3000, completion_tokens: 500 } }]);
    const progress: string[] = [];
    const { output, run } = await llmEngineer(input, configFor(fake.url, { priceIn: 1, priceOut: 4 }), {
      onProgress: (m) => progress.push(m),
    });

    expect(output.items).toHaveLength(8);
    expect(output.items.every((i) => i.proposer === "llm")).toBe(true);
    const child = output.items[6];
    expect(child).toMatchObject({
      op: "mutate",
      parentKey: "g1-0000",
      environmentKey: "g2-llm-1",
      config: { ...population[0].config, ...childEdit },
    });
    expect(output.items[7]).toMatchObject({ op: "add", environmentKey: "g2-llm-2", config: freshConfig });
    expect(output.items[5].flags).toEqual(["no_evidence"]);
    expect(output.notes.some((n) => n.includes("1 item cite no evidence"))).toBe(true);

    expect(run).toMatchObject({
      model: "fake-model",
      promptTokens: 3000,
      completionTokens: 500,
      attempts: 1,
      structured: "json_schema",
      repairTurns: 0,
    });
    expect(run.costUsd).toBeCloseTo((3000 * 1 + 500 * 4) / 1e6, 12);
    expect(run.latencyMs).toBeGreaterThanOrEqual(0);
    expect(run.rawOutput).toBe(answer(goodItems()));
    expect(run.error).toBeUndefined();
    expect(progress.length).toBeGreaterThan(0);

    const request = fake.requests[0];
    expect(request.path).toBe("/v1/chat/completions");
    expect(request.body?.model).toBe("fake-model");
    const format = request.body?.response_format as {
      type: string;
      json_schema: { name: string; strict: boolean; schema: Record<string, unknown> };
    };
    expect(format.type).toBe("json_schema");
    expect(format.json_schema).toMatchObject({ name: "proposal", strict: false, schema: { required: ["items"] } });
    const messages = sentMessages(fake, 0);
    expect(messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(messages[1].content).toContain("c-collide");
    expect(messages[1].content).toContain("g1-0003");
  });

  it("works with a minimal config (defaults for timeout and retries) and leaves cost null without prices", async () => {
    const fake = await start([good()]);
    const { run } = await llmEngineer(input, { baseURL: fake.url, apiKey: null, model: "fake-model" });
    expect(run.costUsd).toBeNull();
    expect(fake.requests[0].headers.authorization).toBe("Bearer unused");
  });

  it("accepts an answer in ```json fences", async () => {
    const fake = await start([{ content: "Here is my proposal:\n```json\n" + answer(goodItems()) + "\n```" }]);
    const { output, run } = await llmEngineer(input, configFor(fake.url));
    expect(output.items).toHaveLength(8);
    expect(run.repairTurns).toBe(0);
  });

  it("(b) repairs invalid JSON with one turn quoting the parse error", async () => {
    // prose with no JSON at all (a cut-off object would be completed by jsonrepair and go on to validation)
    const broken = "I would keep g1-0000 and retire g1-0003.";
    let parseMessage = "";
    try {
      JSON.parse(broken);
    } catch (err) {
      parseMessage = (err as Error).message;
    }
    const fake = await start([{ content: broken }, good()]);
    const { output, run } = await llmEngineer(input, configFor(fake.url));

    expect(output.items).toHaveLength(8);
    expect(run).toMatchObject({ attempts: 2, repairTurns: 1 });
    const messages = sentMessages(fake, 1);
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(messages[2].content).toBe(broken);
    expect(messages[3].content).toContain("not valid JSON");
    expect(messages[3].content).toContain(parseMessage);
  });

  it("(c) repairs a schema-violating config, quoting items.N.config.size and the unknown key", async () => {
    const bad = goodItems();
    bad[6] = { ...bad[6], edits: { size: 99 } };
    bad[7] = { ...bad[7], config: { ...freshConfig, colour: "red" } };
    const fake = await start([{ content: answer(bad) }, good()]);
    const { output, run } = await llmEngineer(input, configFor(fake.url));

    expect(output.items).toHaveLength(8);
    expect(run.repairTurns).toBe(1);
    const repair = sentMessages(fake, 1)[3].content;
    expect(repair).toContain("items.6.config.size");
    expect(repair).toContain("items.7.config.colour");
  });

  it("(c) fails after three bad answers, keeping the last raw answer", async () => {
    const bad = goodItems();
    bad[6] = { ...bad[6], edits: { size: 99 } };
    const third = answer([...bad.slice(0, 6), { ...bad[6], edits: { size: 0 } }]);
    const fake = await start([{ content: answer(bad) }, { content: answer(bad) }, { content: third }]);
    const err = await expectFailure(llmEngineer(input, configFor(fake.url)));

    expect(err.message).toContain("still invalid after 2 repair turns");
    expect(err.message).toContain("items.6.config.size");
    expect(err.run).toMatchObject({ attempts: 3, repairTurns: 2, rawOutput: third, structured: "json_schema" });
    expect(err.run.error).toBe(err.message);
    expect(err.run.promptTokens).toBeGreaterThan(0);
    expect(fake.requests).toHaveLength(3);
    expect(sentMessages(fake, 2)).toHaveLength(6);
  });

  it("(d) repairs a citation of a cluster that does not exist", async () => {
    const bad = goodItems();
    bad[0] = { ...bad[0], evidence: [{ kind: "cluster", ref: "c-ghost" }] };
    const fake = await start([{ content: answer(bad) }, good()]);
    const { run } = await llmEngineer(input, configFor(fake.url));

    expect(run.repairTurns).toBe(1);
    const repair = sentMessages(fake, 1)[3].content;
    expect(repair).toContain("items.0.evidence.0.ref");
    expect(repair).toContain('Cluster "c-ghost" does not exist');
  });

  it("(e) retries a 429 and succeeds with two attempts", async () => {
    const fake = await start([{ status: 429, headers: { "retry-after": "0" } }, good()]);
    const { output, run } = await llmEngineer(input, configFor(fake.url));
    expect(output.items).toHaveLength(8);
    expect(run).toMatchObject({ attempts: 2, repairTurns: 0 });
  });

  it("retries a 503 and fails with a clear message once the retries are spent", async () => {
    const fake = await start([
      { status: 503, headers: { "retry-after": "0" } },
      { status: 503, headers: { "retry-after": "0" } },
    ]);
    const err = await expectFailure(llmEngineer(input, configFor(fake.url, { maxRetries: 1 })));
    expect(err.message).toContain("503");
    expect(err.run.attempts).toBe(2);
    expect(err.run.rawOutput).toBeNull();
  });

  it("(f) retries a request that hangs past the timeout", async () => {
    const fake = await start([{ hangMs: 10_000 }, good()]);
    const { output, run } = await llmEngineer(input, configFor(fake.url, { timeoutMs: 300, maxRetries: 1 }));
    expect(output.items).toHaveLength(8);
    expect(run.attempts).toBe(2);
  });

  it("(f) fails with a timeout error when every try hangs", async () => {
    const fake = await start([{ hangMs: 10_000 }, { hangMs: 10_000 }]);
    const err = await expectFailure(llmEngineer(input, configFor(fake.url, { timeoutMs: 300, maxRetries: 1 })));
    expect(err.message).toMatch(/timeout/i);
    expect(err.message).toContain("300 ms");
    expect(err.run.attempts).toBe(2);
    expect(fake.requests).toHaveLength(2);
  });

  it("(g) falls back to json_object when the endpoint rejects json_schema", async () => {
    const fake = await start([{ rejectResponseFormat: true }, good()]);
    const { run } = await llmEngineer(input, configFor(fake.url));
    expect(run).toMatchObject({ structured: "json_object", attempts: 2 });
    expect((fake.requests[0].body?.response_format as { type: string }).type).toBe("json_schema");
    expect((fake.requests[1].body?.response_format as { type: string }).type).toBe("json_object");
  });

  it("(g) falls back to no response_format and keeps it for the repair turns", async () => {
    const fake = await start([{ rejectResponseFormat: true }, { rejectResponseFormat: true }, { content: "not json" }, good()]);
    const { run } = await llmEngineer(input, configFor(fake.url));
    expect(run).toMatchObject({ structured: "none", attempts: 4, repairTurns: 1 });
    expect(fake.requests[2].body?.response_format).toBeUndefined();
    expect(fake.requests[3].body?.response_format).toBeUndefined();
  });

  it("(h) never puts the API key into errors, progress messages or run records", async () => {
    const progress: string[] = [];
    const fake = await start([{ echoHeaders: true, status: 400 }]);
    const err = await expectFailure(llmEngineer(input, configFor(fake.url), { onProgress: (m) => progress.push(m) }));
    expect(fake.requests[0].headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(err.message).toContain("[redacted]");
    const everything = JSON.stringify({ message: err.message, stack: err.stack, text: String(err), run: err.run, own: err, progress });
    expect(everything).not.toContain(API_KEY);

    await fake.close();
    // The model's answer itself echoes the headers (and so the key) three times.
    const echo = await start([{ echoHeaders: true }, { echoHeaders: true }, { echoHeaders: true }]);
    const err2 = await expectFailure(llmEngineer(input, configFor(echo.url), { onProgress: (m) => progress.push(m) }));
    expect(err2.run.rawOutput).toContain("[redacted]");
    expect(JSON.stringify({ message: err2.message, stack: err2.stack, run: err2.run, progress })).not.toContain(API_KEY);
  });

  it("names the cause of a 401 and of an unreachable endpoint", async () => {
    const fake = await start([{ status: 401 }]);
    const err = await expectFailure(llmEngineer(input, configFor(fake.url)));
    expect(err.message).toContain("OPENAI_API_KEY");
    await fake.close();
    server = undefined;
    const down = await expectFailure(llmEngineer(input, configFor(fake.url, { maxRetries: 0 })));
    expect(down.message).toContain("OPENAI_BASE_URL");
  });

  it("also serves a base URL without /v1", async () => {
    const fake = await start([good()]);
    const { output } = await llmEngineer(input, configFor(fake.url.replace(/\/v1$/, "")));
    expect(output.items).toHaveLength(8);
    expect(fake.requests[0].path).toBe("/chat/completions");
  });
});

/** A Terminal-Bench-sized input: 1,000 environments and a ~6k-token summary (40 clusters with long excerpts). */
function bigServerInput(): EngineerInput {
  const big = [...population, ...Array.from({ length: 994 }, (_, k) => member(k + 6, 8, ((k + 6) * 7) % 9, false))];
  const bigInput = inputFor(big);
  const base = bigInput.summary.failures.clusters;
  const extra = Array.from({ length: 38 }, (_, i) => ({
    ...base[1],
    id: `c-extra-${i}`,
    signature: `failure mode ${i}`,
    excerpt: `step ${i}: `.padEnd(600, "x"),
  }));
  bigInput.summary.failures.clusters = [...base, ...extra];
  return bigInput;
}

describe("llmEngineer on vLLM, SGLang, llama.cpp and Ollama (an 8k context)", () => {
  const cases: { server: FakeServerKind; settles: string; refusedStatus: number; source: string }[] = [
    { server: "vllm-xgrammar", settles: "json_object", refusedStatus: 400, source: "/v1/models max_model_len" },
    { server: "vllm-guidance", settles: "json_object", refusedStatus: 500, source: "/v1/models max_model_len" },
    { server: "vllm-outlines", settles: "none", refusedStatus: 400, source: "/v1/models max_model_len" },
    { server: "sglang", settles: "json_object", refusedStatus: 400, source: "/v1/models max_model_len" },
    { server: "llamacpp", settles: "json_object", refusedStatus: 400, source: "/props n_ctx" },
    { server: "ollama", settles: "none", refusedStatus: 500, source: "/api/show num_ctx" },
  ];
  for (const c of cases) {
    it(`${c.server}: steps down on its own refusal, fits the window it reports and remembers the format`, async () => {
      const bigInput = bigServerInput();
      const fake = await start([good(), good()], { server: c.server, contextWindow: 8192 });
      const { output, run } = await llmEngineer(bigInput, configFor(fake.url));
      expect(output.items.length).toBeGreaterThan(0);
      expect(run.structured).toBe(c.settles);
      expect(run.contextWindow).toEqual({ tokens: 8192, source: c.source });
      const refused = c.settles === "none" ? 2 : 1;
      // a refusal is not retried by the SDK, even as a 500
      expect(run.attempts).toBe(refused + 1);
      expect((fake.requests[0].body?.response_format as { type: string }).type).toBe("json_schema");
      const last = fake.requests[refused];
      expect((last.body?.response_format as { type: string } | undefined)?.type).toBe(c.settles === "none" ? undefined : c.settles);
      // the request fits the 8k window with the answer's max_tokens (counted more strictly than the client counts)
      expect(fake.requests.every((r) => !r.overflow)).toBe(true);
      expect(last.promptTokens! + (last.body?.max_tokens as number)).toBeLessThanOrEqual(8192);
      expect(last.body?.max_tokens as number).toBeGreaterThanOrEqual(1024);

      // the same endpoint again: the accepted format first, no refused request
      const before = fake.requests.length;
      const again = await llmEngineer(bigInput, configFor(fake.url));
      expect(again.run.attempts).toBe(1);
      expect((fake.requests[before].body?.response_format as { type: string } | undefined)?.type).toBe(
        c.settles === "none" ? undefined : c.settles,
      );
    }, 30_000); // two engineer runs over HTTP with an 8k prompt each: slow on a busy machine, not a speed check
  }

  it("ENVFORGE_ENGINEER_CONTEXT_TOKENS fits a server that reports no window; without it the server refuses the prompt", async () => {
    const bigInput = bigServerInput();
    const fake = await start([good()], { contextWindow: 8192 });
    const err = await expectFailure(llmEngineer(bigInput, configFor(fake.url)));
    expect(err.message).toContain("maximum context length is 8192 tokens");
    expect(fake.requests[0].overflow).toBe(true);
    const { run } = await llmEngineer(bigInput, configFor(fake.url, { contextTokens: 8192 }));
    expect(run.contextWindow).toEqual({ tokens: 8192, source: "ENVFORGE_ENGINEER_CONTEXT_TOKENS" });
    expect(fake.requests[1].overflow).toBeUndefined();
    expect(
      llmEngineerConfigFromEnv({ OPENAI_BASE_URL: "http://x/v1", ENVFORGE_ENGINEER_MODEL: "m", ENVFORGE_ENGINEER_CONTEXT_TOKENS: "8192" })
        ?.contextTokens,
    ).toBe(8192);
    expect(() =>
      llmEngineerConfigFromEnv({ OPENAI_BASE_URL: "http://x/v1", ENVFORGE_ENGINEER_MODEL: "m", ENVFORGE_ENGINEER_CONTEXT_TOKENS: "512" }),
    ).toThrow(/ENVFORGE_ENGINEER_CONTEXT_TOKENS/);
  });

  it("repairs a plain-text answer (prose, trailing commas, single quotes) without a repair turn", async () => {
    const sloppy = `Here is my proposal:\n${answer(goodItems()).replace(/"op"/g, "'op'").replace(/\]\}$/, ",]}")}`;
    const fake = await start([{ content: sloppy }], { server: "ollama" });
    const { run } = await llmEngineer(input, configFor(fake.url));
    expect(run).toMatchObject({ structured: "none", repairTurns: 0 });
  });
});

describe("validateItems", () => {
  it("checks keys, duplicates and evidence, and flags uncited items", () => {
    const items = goodItems();
    const raw = [
      { op: "keep", environmentKey: "g1-9999", rationale: "x", evidence: [] },
      { op: "retire", environmentKey: "g1-0000", rationale: "x", evidence: [{ kind: "rollout", ref: "r-999" }] },
      { op: "mutate", environmentKey: "n1", rationale: "x", config: population[1].config, evidence: [] },
      { op: "add", environmentKey: "n2", rationale: "x", config: freshConfig, evidence: [{ kind: "stat", ref: "" }] },
      { op: "add", environmentKey: "n3", rationale: "x", config: freshConfig, evidence: [], predictedSuccess: 2 },
      { op: "grow", environmentKey: "n4" },
      items[3],
    ];
    const { items: valid, errors } = validateItems(input, raw, { proposer: "heuristic" });
    const paths = errors.map((e) => e.path);
    expect(paths).toContain("items.0.environmentKey");
    expect(paths).toContain("items.1.evidence.0.ref");
    expect(paths).toContain("items.2.parentKey");
    expect(paths).toContain("items.2.config");
    expect(paths).toContain("items.3.evidence.0.ref");
    expect(paths).toContain("items.4.predictedSuccess");
    expect(paths).toContain("items.5.op");
    expect(valid.map((i) => i.environmentKey)).toEqual(["g1-0003"]);
    expect(valid[0]).toMatchObject({ proposer: "heuristic", config: population[3].config });

    const duplicate = validateItems(
      input,
      [
        { op: "add", environmentKey: "a", rationale: "x", config: freshConfig, evidence: [] },
        { op: "add", environmentKey: "b", rationale: "x", config: { ...freshConfig }, evidence: [] },
      ],
      { proposer: "llm" },
    );
    expect(duplicate.errors.map((e) => e.path)).toEqual(["items.1.config"]);
    expect(duplicate.items[0].flags).toEqual(["no_evidence"]);
  });

  it("reports the family validator's verdict at the field's path", () => {
    const unsolvable = { ...freshConfig, size: 16, num_agents: 1, min_goal_distance: 20, max_steps: 10 };
    const { errors } = validateItems(input, [{ op: "add", environmentKey: "a", rationale: "x", config: unsolvable, evidence: [] }], {
      proposer: "llm",
    });
    expect(errors).toEqual([{ item: 0, path: "items.0.config.max_steps", message: expect.stringContaining("unsolvable") }]);
  });
});

describe("parseProposalText", () => {
  it("strips fences and reasoning, accepts a bare list and reports what is wrong", () => {
    expect(parseProposalText('<think>hmm</think>```json\n{"items": [1]}\n```')).toEqual({ ok: true, items: [1] });
    expect(parseProposalText("[1, 2]")).toEqual({ ok: true, items: [1, 2] });
    expect(parseProposalText('Sure! {"items": []} Hope this helps.')).toEqual({ ok: true, items: [] });
    expect(parseProposalText('{"proposal": []}')).toMatchObject({ ok: false });
    expect(parseProposalText("")).toMatchObject({ ok: false, message: "Your answer is empty." });
  });
});

describe("buildEngineerPrompt", () => {
  it("lists every environment of a small population with its config, score and tier", () => {
    const prompt = buildEngineerPrompt(input);
    expect(prompt.environmentsShown).toBe(6);
    expect(prompt.omittedKeys).toEqual([]);
    const user = prompt.messages[1].content;
    const c = population[0].config;
    expect(user).toContain(`g1-0000 | ${c.size},${c.num_agents},`);
    expect(user).toContain("| 4/8 | advanced");
    expect(user).toContain("- size: integer in [3, 32]");
    expect(user).toContain("raising it makes the task harder");
    expect(user).toContain(JSON.stringify(input.summary));
    expect(prompt.messages[0].content).toContain("ONLY cluster ids");
  });

  it("stays within its budget for 1,000 environments, keeps the most learnable ones and is deterministic", () => {
    const big = Array.from({ length: 1000 }, (_, i) => member(i, 8, (i * 7) % 9, false));
    const bigInput = inputFor(big);
    const prompt = buildEngineerPrompt(bigInput);
    expect(prompt.tokenEstimate).toBeLessThanOrEqual(12_000);
    expect(prompt.environmentsShown).toBeGreaterThan(100);
    expect(prompt.environmentsShown + prompt.omittedKeys.length).toBe(1000);
    const user = prompt.messages[1].content;
    expect(user).toContain(`Left out for the token budget: ${prompt.omittedKeys.length} environments`);
    expect(user).toContain("Population totals: 1000 environments");
    // 4/8 has the highest learnability; 0/8 and 8/8 the lowest.
    const omitted = new Set(prompt.omittedKeys);
    expect(big.filter((m) => m.s === 4).every((m) => !omitted.has(m.key))).toBe(true);
    expect(big.filter((m) => m.s === 0 || m.s === 8).every((m) => omitted.has(m.key))).toBe(true);

    expect(buildEngineerPrompt(inputFor([...big]))).toEqual(prompt);
    const small = buildEngineerPrompt(bigInput, 4000);
    expect(small.tokenEstimate).toBeLessThanOrEqual(4000);
    expect(small.environmentsShown).toBeLessThan(prompt.environmentsShown);
  });
});

describe("llmEngineerConfigFromEnv", () => {
  it("is null without a model or base URL and parses the optional numbers", () => {
    expect(llmEngineerConfigFromEnv({})).toBeNull();
    expect(llmEngineerConfigFromEnv({ OPENAI_BASE_URL: "http://x/v1" })).toBeNull();
    expect(llmEngineerConfigFromEnv({ ENVFORGE_ENGINEER_MODEL: "m" })).toBeNull();
    expect(llmEngineerConfigFromEnv({ OPENAI_BASE_URL: "http://x/v1", ENVFORGE_ENGINEER_MODEL: "m" })).toMatchObject({
      apiKey: null,
      timeoutMs: 120_000,
      priceIn: null,
      priceOut: null,
    });
    expect(
      llmEngineerConfigFromEnv({
        OPENAI_BASE_URL: "http://x/v1",
        ENVFORGE_ENGINEER_MODEL: "m",
        OPENAI_API_KEY: "k",
        ENVFORGE_ENGINEER_TIMEOUT_MS: "5000",
        ENVFORGE_ENGINEER_PRICE_IN: "0.5",
        ENVFORGE_ENGINEER_PRICE_OUT: "1.5",
      }),
    ).toMatchObject({ apiKey: "k", timeoutMs: 5000, priceIn: 0.5, priceOut: 1.5 });
    expect(() =>
      llmEngineerConfigFromEnv({ OPENAI_BASE_URL: "http://x/v1", ENVFORGE_ENGINEER_MODEL: "m", ENVFORGE_ENGINEER_TIMEOUT_MS: "soon" }),
    ).toThrow(/ENVFORGE_ENGINEER_TIMEOUT_MS/);
  });
});
