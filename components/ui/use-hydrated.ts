import { useSyncExternalStore } from "react";

const noSubscription = () => () => {};
const onClient = () => true;
const onServer = () => false;

/**
 * False while the server renders the page and while React hydrates it, true once the page listens (useSyncExternalStore's
 * server and client snapshots). Controls that only work through React wait on it: before it, a chosen file is dropped (the
 * hydration empties the input) and a form submits natively, its fields in the address (a password among them).
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(noSubscription, onClient, onServer);
}
