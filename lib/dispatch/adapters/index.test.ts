import { describe, expect, it } from "vitest";
import { ADAPTERS } from "../types";
import { ADAPTER_REGISTRY, getAdapter, isAdapterName } from "./index";

describe("adapter registry", () => {
  it("has every adapter under its own name", () => {
    for (const name of ADAPTERS) {
      expect(getAdapter(name).name).toBe(name);
      expect(ADAPTER_REGISTRY[name]).toBe(getAdapter(name));
    }
    expect(getAdapter("webhook").needsSecret).toBe(true);
    expect(getAdapter("kubernetes").needsSecret).toBe(true);
    expect(getAdapter("export").poll).toBeUndefined();
  });

  it("names the known adapters for an unknown one", () => {
    expect(isAdapterName("slurm")).toBe(false);
    expect(() => getAdapter("slurm")).toThrow(/use one of local, webhook, ray, kubernetes, export/);
  });
});
