/**
 * CSV downloads over HTTP on a real Postgres: the rollouts list's current filter (every page, labels
 * included, hostile text quoted and defused) and the run comparison.
 */
import { indexPendingRollouts } from "@/lib/rollouts/search-index";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EnvForgeClient } from "@/cli/client";
import { lake } from "./configs";
import { startApi, stopApi, createProjectWith, type TestDb, type TestServer } from "./api-harness";

const TOKEN = "test-bootstrap-token-csv-export01";
let db: TestDb;
let server: TestServer;
let client: EnvForgeClient;

/** A reader of RFC 4180 text, written apart from the writer so the test checks the bytes, not itself. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      row.push(cell);
      cell = "";
    } else if (ch === "\r" && text[i + 1] === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
      i++;
    } else cell += ch;
  }
  expect(quoted).toBe(false);
  expect(cell).toBe("");
  return rows;
}

const download = async (p: string) => {
  const res = await fetch(server.url + p, { headers: { authorization: `Bearer ${TOKEN}` } });
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    disposition: res.headers.get("content-disposition"),
    text: await res.text(),
  };
};
const HOSTILE = '=HYPERLINK("http://evil","x"), then\na new line';

beforeAll(async () => {
  ({ db, server, admin: client } = await startApi(TOKEN));
  await createProjectWith(
    client,
    { slug: "csv" },
    {
      environments: [
        { key: "e1", config: lake(1) },
        { key: "e2", config: lake(2) },
      ],
    },
  );
  const lines = Array.from({ length: 2101 }, (_, i) => ({
    externalId: i === 0 ? HOSTILE : `r${i}`,
    environmentKey: i % 2 ? "e1" : "e2",
    policy: i % 3 ? "old" : "new",
    reward: i % 5 === 0 ? 1 : 0,
  }));
  const res = await client.request<{ accepted: number }>("POST", "/api/v1/projects/csv/rollouts", { json: lines });
  expect(res.accepted).toBe(lines.length);
  await indexPendingRollouts(db.db);
  await client.request("POST", "/api/v1/projects/csv/labels", { json: { name: 'odd, "quoted"' } });
  const first = await client.request<{ items: { id: number; externalId: string }[] }>("GET", "/api/v1/projects/csv/rollouts?q=HYPERLINK");
  await client.request("POST", `/api/v1/rollouts/${first.items[0].id}/annotations`, { json: { label: 'odd, "quoted"', score: 0.5 } });
  await client.request("POST", `/api/v1/rollouts/${first.items[0].id}/annotations`, { json: { score: 1, note: "=looks fine" } });
  await client.request("POST", `/api/v1/rollouts/${first.items[0].id}/annotations`, { json: { note: "second look" } });
}, 120_000);
afterAll(async () => {
  await stopApi({ server, db });
});

describe("CSV downloads", () => {
  it("exports every rollout the filter matches, across pages, with labels, hostile text quoted and defused", async () => {
    const all = await download("/api/v1/projects/csv/rollouts?format=csv&limit=5");
    expect(all.status).toBe(200);
    expect(all.type).toContain("text/csv");
    expect(all.disposition).toBe('attachment; filename="rollouts-csv.csv"');
    const rows = parseCsv(all.text);
    const header = rows[0];
    expect(header.slice(0, 3)).toEqual(["id", "externalId", "trialName"]);
    // 2101 rollouts is more than two export pages of 1000; the client's limit does not cut the export
    expect(rows).toHaveLength(1 + 2101);
    expect(new Set(rows.slice(1).map((r) => r[0])).size).toBe(2101);
    const hostile = rows.find((r) => r[header.indexOf("externalId")].includes("HYPERLINK"))!;
    expect(hostile[header.indexOf("externalId")]).toBe("'" + HOSTILE);
    expect(hostile[header.indexOf("labels")]).toBe('odd, "quoted"');
    // the annotations' mean score and every note, oldest first (a formula-looking note defused)
    expect(hostile[header.indexOf("score")]).toBe("0.75");
    expect(hostile[header.indexOf("notes")]).toBe("'=looks fine; second look");
    const plain = rows.find((r) => r[header.indexOf("externalId")] === "r7")!;
    expect([plain[header.indexOf("labels")], plain[header.indexOf("score")], plain[header.indexOf("notes")]]).toEqual(["", "", ""]);
    // the filter applies: only e1's rollouts of policy new
    const some = parseCsv((await download("/api/v1/projects/csv/rollouts?format=csv&environmentKey=e1&policy=new")).text);
    expect(some.length - 1).toBe(Array.from({ length: 2101 }, (_, i) => i).filter((i) => i % 2 === 1 && i % 3 === 0).length);
    expect(some.slice(1).every((r) => r[header.indexOf("environmentKey")] === "e1" && r[header.indexOf("policy")] === "new")).toBe(true);
    const labelled = parseCsv(
      (await download(`/api/v1/projects/csv/rollouts?format=csv&label=${encodeURIComponent('odd, "quoted"')}`)).text,
    );
    expect(labelled).toHaveLength(2);
    expect((await download("/api/v1/projects/csv/rollouts?format=csv&success=maybe")).status).toBe(400);
    expect((await download("/api/v1/projects/csv/rollouts?format=xml")).status).toBe(400);
  });

  it("exports the run comparison in its order, regressions first", async () => {
    const c = await client.request<{ environments: { key: string; verdict: string }[] }>(
      "GET",
      "/api/v1/projects/csv/compare?a=0:old&b=0:new",
    );
    const res = await download("/api/v1/projects/csv/compare?a=0:old&b=0:new&format=csv");
    expect(res.status).toBe(200);
    expect(res.disposition).toBe('attachment; filename="compare-csv-g0-old-vs-g0-new.csv"');
    const rows = parseCsv(res.text);
    expect(rows[0].slice(0, 3)).toEqual(["environment", "verdict", "pValue"]);
    expect(rows.slice(1).map((r) => [r[0], r[1]])).toEqual(c.environments.map((e) => [e.key, e.verdict]));
    expect((await download("/api/v1/projects/csv/compare?a=0:old&format=csv")).status).toBe(400);
  });
});
