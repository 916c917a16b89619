import { describe, expect, it } from "vitest";
import { loadSettings, SettingsError } from "./env";

describe("loadSettings", () => {
  it("applies the documented defaults and seeds the demo only on the embedded database", () => {
    const s = loadSettings({}, "/srv/app");
    expect(s).toMatchObject({ PORT: 3000, HOST: "127.0.0.1", dataDir: "/srv/app/.envforge", demo: true, ENVFORGE_MAX_BODY_MB: 256 });
    expect(loadSettings({ DATABASE_URL: "postgres://u:p@db:5432/x" }, "/srv").demo).toBe(false);
    expect(loadSettings({ DATABASE_URL: "postgres://u:p@db:5432/x", ENVFORGE_DEMO: "1" }, "/srv").demo).toBe(true);
    expect(loadSettings({ ENVFORGE_DEMO: "0" }, "/srv").demo).toBe(false);
  });

  it("names the bad setting in one sentence", () => {
    expect(() => loadSettings({ PORT: "eighty" })).toThrow(SettingsError);
    expect(() => loadSettings({ PORT: "eighty" })).toThrow(/^Setting PORT="eighty" is not valid/);
    expect(() => loadSettings({ DATABASE_URL: "mysql://x" })).toThrow(/DATABASE_URL.*postgres:\/\//);
    expect(() => loadSettings({ ENVFORGE_BOOTSTRAP_TOKEN: "short" })).toThrow(/ENVFORGE_BOOTSTRAP_TOKEN.*16 characters/);
    expect(() => loadSettings({ ENVFORGE_DEMO: "maybe" })).toThrow(/ENVFORGE_DEMO/);
  });

  it("reads the host allow-list and the sign-in limits", () => {
    const s = loadSettings({
      ENVFORGE_ALLOWED_HOSTS: " Dash.Lab.org, *.cluster.lab.org ,[::1]",
      ENVFORGE_PUBLIC_URL: "https://envforge.lab.org",
    });
    expect(s.ENVFORGE_ALLOWED_HOSTS).toEqual(["dash.lab.org", "*.cluster.lab.org", "[::1]"]);
    expect(loadSettings({})).toMatchObject({
      ENVFORGE_ALLOWED_HOSTS: [],
      ENVFORGE_SIGNIN_MAX_FAILURES: 10,
      ENVFORGE_SIGNIN_WINDOW_MINUTES: 10,
    });
    expect(() => loadSettings({ ENVFORGE_ALLOWED_HOSTS: "https://dash.lab.org" })).toThrow(/ENVFORGE_ALLOWED_HOSTS.*no ports, no schemes/);
    expect(() => loadSettings({ ENVFORGE_ALLOWED_HOSTS: "dash.lab.org:3000" })).toThrow(/ENVFORGE_ALLOWED_HOSTS/);
    expect(() => loadSettings({ ENVFORGE_PUBLIC_URL: "envforge.lab.org" })).toThrow(/ENVFORGE_PUBLIC_URL.*http\(s\) URL/);
    expect(() => loadSettings({ ENVFORGE_SIGNIN_MAX_FAILURES: "0" })).toThrow(/ENVFORGE_SIGNIN_MAX_FAILURES.*at least 1/);
  });
});
