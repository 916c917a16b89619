/** A sample generation payload for the adapter tests (terminal-task project, three environments). */
import { randomUUID } from "node:crypto";
import type { DeliveryContext, GenerationPayload } from "../types";

const envs: { key: string; config: Record<string, unknown>; weight: number }[] = [
  {
    key: "g3-0001",
    config: { task_name: "fix-git", source: "terminal-bench", domain: "software_engineering", language: "bash", task_complexity: "short" },
    weight: 0.5,
  },
  {
    key: "g3-0002",
    config: { task_name: "sqlite-with-gcov", source: "terminal-bench", domain: "debugging", language: "c", agent_timeout_sec: 900 },
    weight: 0.3,
  },
  {
    key: "g3-0003",
    config: { task_name: "regex-log", source: "terminal-bench", domain: "data_processing", language: "python", allow_internet: false },
    weight: 0.2,
  },
];

/** A payload with a fresh dispatch id; `overrides` replace top-level fields. */
export function samplePayload(overrides: Partial<GenerationPayload> = {}): GenerationPayload {
  return {
    dispatchId: randomUUID(),
    project: { slug: "tb-curriculum", name: "Terminal-Bench curriculum", family: "terminal-task", successThreshold: 0.5 },
    generation: { index: 3, status: "approved", parentIndex: 2, trainingSteps: 200, mixWeight: 0.7, proposalId: null },
    target: { name: "trainer-a", kind: "trainer" },
    environments: envs.map((e, i) => ({
      key: e.key,
      config: e.config,
      configHash: `hash-${i}-${e.key}`,
      weight: e.weight,
      parentKey: i === 0 ? null : "g2-0001",
      op: i === 0 ? "keep" : "mutate",
      direction: i === 0 ? null : "horizon",
    })),
    callbacks: {
      validation: "http://127.0.0.1:3000/api/v1/callbacks/validation/abc",
      rollouts: "http://127.0.0.1:3000/api/v1/callbacks/rollouts/abc",
    },
    createdAt: "2026-11-01T12:00:00.000Z",
    ...overrides,
  };
}

/** A delivery context for a payload, config and secret (attempt 1 unless given). */
export function deliveryContext(
  payload: GenerationPayload,
  config: Record<string, unknown>,
  secret: string | null = null,
  attempt = 1,
): DeliveryContext {
  return { payload, config, secret, attempt };
}
