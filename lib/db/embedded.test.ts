import { describe, expect, it } from "vitest";
import { portTakenIn } from "./embedded";

// The messages are Postgres's own (src/backend/libpq/pqcomm.c): the first log is the one a CI run printed when two
// embedded servers started at the same moment and the second lost the port at listen(), not at bind().
describe("portTakenIn (a failed start that should retry on another port)", () => {
  it("reads both ways Postgres says the port is taken", () => {
    const atListen = [
      'LOG:  could not listen on IPv4 address "127.0.0.1": Address already in use',
      'WARNING:  could not create listen socket for "127.0.0.1"',
      "FATAL:  could not create any TCP/IP sockets",
    ].join("\n");
    const atBind = [
      'LOG:  could not bind IPv4 address "127.0.0.1": Address already in use',
      "HINT:  Is another postmaster already running on port 54329? If not, wait a few seconds and retry.",
    ].join("\n");
    expect(portTakenIn(atListen)).toBe(true);
    expect(portTakenIn(atBind)).toBe(true);
  });

  it("does not retry other failures, even when the words appear on separate lines", () => {
    expect(portTakenIn('LOG:  could not bind IPv4 address "127.0.0.1": Cannot assign requested address')).toBe(false);
    expect(portTakenIn('LOG:  could not listen on IPv4 address "127.0.0.1": Permission denied')).toBe(false);
    expect(portTakenIn('FATAL:  could not bind IPv4 address "127.0.0.1"\nLOG:  Address already in use')).toBe(false);
    expect(portTakenIn("FATAL:  data directory has wrong ownership")).toBe(false);
  });
});
