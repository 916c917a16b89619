import { describe, expect, it } from "vitest";
import { csvCell, csvRow, csvStream } from "./index";

describe("csv quoting (RFC 4180) and formula defusing", () => {
  it("quotes fields with quotes, commas and line breaks, doubling inner quotes", () => {
    expect(csvCell("plain")).toBe("plain");
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell("a,b")).toBe('"a,b"');
    expect(csvCell("line1\nline2")).toBe('"line1\nline2"');
    expect(csvCell("cr\r\nlf")).toBe('"cr\r\nlf"');
    expect(csvCell(" padded")).toBe('" padded"');
    expect(csvCell("")).toBe("");
  });

  it("prefixes text starting with = + - @ tab or CR with a single quote", () => {
    expect(csvCell('=HYPERLINK("http://x","y")')).toBe('"\'=HYPERLINK(""http://x"",""y"")"');
    expect(csvCell("+1")).toBe("'+1");
    expect(csvCell("-2+3")).toBe("'-2+3");
    expect(csvCell("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvCell("\tcmd")).toBe("'\tcmd");
    expect(csvCell("a=b")).toBe("a=b");
    // numbers are data, not text: a negative reward stays a number
    expect(csvCell(-0.5)).toBe("-0.5");
  });

  it("writes other values plainly", () => {
    expect(csvCell(null)).toBe("");
    expect(csvCell(undefined)).toBe("");
    expect(csvCell(Number.NaN)).toBe("");
    expect(csvCell(true)).toBe("true");
    expect(csvCell(new Date("2026-01-02T03:04:05.000Z"))).toBe("2026-01-02T03:04:05.000Z");
    expect(csvCell(["good", "x,y"])).toBe('"good; x,y"');
    expect(csvRow(["a", 1, null, 'q"'])).toBe('a,1,,"q"""\r\n');
  });

  it("streams the header, then each page only when it is pulled", async () => {
    let read = 0;
    async function* pages() {
      for (let p = 0; p < 3; p++) {
        read += 1;
        yield [[`r${p}`, p]] as const;
      }
    }
    const stream = csvStream(["name", "n"], pages());
    const reader = stream.getReader();
    const decoder = new TextDecoder();
    expect(decoder.decode((await reader.read()).value)).toBe("name,n\r\n");
    expect(read).toBe(0);
    expect(decoder.decode((await reader.read()).value)).toBe("r0,0\r\n");
    expect(read).toBe(1);
    let rest = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += decoder.decode(value);
    }
    expect(rest).toBe("r1,1\r\nr2,2\r\n");
  });
});
