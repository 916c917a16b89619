/** The dispatch adapters by name. */
import { ADAPTERS, type AdapterName, type DispatchAdapter } from "../types";
import { exportAdapter } from "./export";
import { kubernetesAdapter } from "./kubernetes";
import { localAdapter } from "./local";
import { rayAdapter } from "./ray";
import { webhookAdapter } from "./webhook";

/** Every adapter, keyed by its name (targets.adapter). */
export const ADAPTER_REGISTRY: Readonly<Record<AdapterName, DispatchAdapter>> = {
  local: localAdapter,
  webhook: webhookAdapter,
  ray: rayAdapter,
  kubernetes: kubernetesAdapter,
  export: exportAdapter,
};

/** Whether `name` is an adapter name. */
export function isAdapterName(name: string): name is AdapterName {
  return (ADAPTERS as readonly string[]).includes(name);
}

/** The adapter with this name; throws naming the known ones otherwise. */
export function getAdapter(name: string): DispatchAdapter {
  if (!isAdapterName(name)) throw new Error(`Unknown dispatch adapter "${name}": use one of ${ADAPTERS.join(", ")}.`);
  return ADAPTER_REGISTRY[name];
}
