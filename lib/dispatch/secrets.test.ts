import { describe, expect, it } from "vitest";
import { decryptSecret, encryptSecret, resolveSecret, TargetSecretError } from "./secrets";

const KEY = "test-key-material-0123456789abcdef";

describe("target secrets", () => {
  it("round-trips through v1:<iv>:<tag>:<ciphertext> with a fresh IV each time", () => {
    const blob = encryptSecret("whsec-ü-123", KEY);
    expect(blob).toMatch(/^v1:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/);
    expect(blob).not.toContain("whsec");
    expect(decryptSecret(blob, KEY)).toBe("whsec-ü-123");
    expect(encryptSecret("whsec-ü-123", KEY)).not.toBe(blob);
    expect(decryptSecret(encryptSecret("", KEY), KEY)).toBe("");
  });

  it("a wrong key throws a clear error", () => {
    const blob = encryptSecret("token", KEY);
    expect(() => decryptSecret(blob, "another-key-material-xyz")).toThrow(TargetSecretError);
    expect(() => decryptSecret(blob, "another-key-material-xyz")).toThrow(/ENVFORGE_SECRET_KEY is not the key/);
  });

  it("a tampered or malformed blob is refused", () => {
    const [v, iv, tag, ct] = encryptSecret("token", KEY).split(":");
    const flipped = Buffer.from(ct, "base64");
    flipped[0] ^= 1;
    expect(() => decryptSecret([v, iv, tag, flipped.toString("base64")].join(":"), KEY)).toThrow(TargetSecretError);
    expect(() => decryptSecret("plain-text-secret", KEY)).toThrow(/expected format/);
    expect(() => decryptSecret(`v2:${iv}:${tag}:${ct}`, KEY)).toThrow(/expected format/);
    expect(() => decryptSecret(`v1:AAAA:${tag}:${ct}`, KEY)).toThrow(/damaged/);
  });

  it("refuses short key material", () => {
    expect(() => encryptSecret("x", "short")).toThrow(/at least 16/);
  });

  it("resolves a secret from a named environment variable, else from the ciphertext", () => {
    const env = { ENVFORGE_SECRET_KEY: KEY, RAY_TOKEN: "from-env" };
    const secretCiphertext = encryptSecret("stored", KEY);
    expect(resolveSecret({ secretEnv: "RAY_TOKEN" }, env)).toBe("from-env");
    expect(resolveSecret({ secretEnv: "RAY_TOKEN", secretCiphertext }, env)).toBe("from-env");
    expect(resolveSecret({ secretCiphertext }, env)).toBe("stored");
    expect(resolveSecret({ secretCiphertext: null, secretEnv: null }, env)).toBeNull();
    expect(resolveSecret({}, env)).toBeNull();
  });

  it("says what to set when the variable or the key is missing", () => {
    expect(() => resolveSecret({ secretEnv: "MISSING_TOKEN" }, {})).toThrow(/MISSING_TOKEN, which is not set/);
    expect(() => resolveSecret({ secretCiphertext: encryptSecret("s", KEY) }, {})).toThrow(/ENVFORGE_SECRET_KEY is not set/);
    expect(() => resolveSecret({ secretCiphertext: encryptSecret("s", KEY) }, { ENVFORGE_SECRET_KEY: "a-different-key-material" })).toThrow(
      TargetSecretError,
    );
  });
});
