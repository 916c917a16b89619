"use client";

import { useEffect, useEffectEvent, useState } from "react";

/** The turn a `#turn-N` fragment points at, if the location has one. */
export function readTurnHash(): number | null {
  const m = /^#turn-(\d+)$/.exec(window.location.hash);
  return m ? Number(m[1]) : null;
}

/** Point the address at turn `index` without scrolling or adding a history entry. */
export function writeTurnHash(index: number) {
  history.replaceState(history.state, "", `#turn-${index}`);
}

/** Call `go` with the turn of the `#turn-N` fragment on mount and whenever the fragment changes. */
export function useTurnHash(go: (index: number) => void) {
  const onHash = useEffectEvent(() => {
    const index = readTurnHash();
    if (index !== null) go(index);
  });
  useEffect(() => {
    const listener = () => onHash();
    listener();
    window.addEventListener("hashchange", listener);
    return () => window.removeEventListener("hashchange", listener);
  }, []);
}

/** `value`, once it has stopped changing for `ms`. */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}
