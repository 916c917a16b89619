import { describe, expect, it } from "vitest";
import { ariaSort, nextSort, sortRows } from "@/components/ui/table-sort";

describe("table sort state", () => {
  it("a new column sorts ascending, the sorted column flips", () => {
    expect(nextSort(null, "name")).toEqual({ key: "name", direction: "asc" });
    expect(nextSort({ key: "name", direction: "asc" }, "name")).toEqual({ key: "name", direction: "desc" });
    expect(nextSort({ key: "name", direction: "desc" }, "name")).toEqual({ key: "name", direction: "asc" });
    expect(nextSort({ key: "name", direction: "desc" }, "age")).toEqual({ key: "age", direction: "asc" });
  });

  it("only the sorted column reports a direction to assistive tech", () => {
    const sort = { key: "age", direction: "desc" } as const;
    expect(ariaSort(sort, "age")).toBe("descending");
    expect(ariaSort({ key: "age", direction: "asc" }, "age")).toBe("ascending");
    expect(ariaSort(sort, "name")).toBe("none");
    expect(ariaSort(null, "name")).toBe("none");
  });
});

describe("sortRows", () => {
  const rows = [
    { n: "env-10", v: 2 },
    { n: "env-9", v: null },
    { n: "env-2", v: 10 },
    { n: "env-1", v: 2 },
  ];
  const value = (r: (typeof rows)[number], key: string) => (key === "n" ? r.n : r.v);

  it("compares numbers as numbers and numeric parts of strings as numbers", () => {
    expect(sortRows(rows, { key: "n", direction: "asc" }, value).map((r) => r.n)).toEqual(["env-1", "env-2", "env-9", "env-10"]);
    expect(sortRows(rows, { key: "n", direction: "desc" }, value).map((r) => r.n)).toEqual(["env-10", "env-9", "env-2", "env-1"]);
  });

  it("puts empty values last either way and keeps equal rows in their order", () => {
    expect(sortRows(rows, { key: "v", direction: "asc" }, value).map((r) => r.n)).toEqual(["env-10", "env-1", "env-2", "env-9"]);
    expect(sortRows(rows, { key: "v", direction: "desc" }, value).map((r) => r.n)).toEqual(["env-2", "env-10", "env-1", "env-9"]);
  });

  it("leaves the input alone and returns it unchanged without a sort", () => {
    const before = rows.map((r) => r.n);
    expect(sortRows(rows, null, value).map((r) => r.n)).toEqual(before);
    sortRows(rows, { key: "n", direction: "asc" }, value);
    expect(rows.map((r) => r.n)).toEqual(before);
  });
});
