import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { WordBreaks } from "./word-breaks";

const html = (text: string) => renderToStaticMarkup(createElement(WordBreaks, { text }));

describe("WordBreaks", () => {
  it("offers a break where the words of a CamelCase or snake_case name meet, nowhere else", () => {
    expect(html("AgentTimeoutError")).toBe("Agent<wbr/>Timeout<wbr/>Error");
    expect(html("context_length_exceeded")).toBe("context_<wbr/>length_<wbr/>exceeded");
    expect(html("HTTP2Error")).toBe("HTTP2<wbr/>Error");
    expect(html("infra_error")).toBe("infra_<wbr/>error");
    expect(html("timeout")).toBe("timeout");
    expect(html("")).toBe("");
  });
});
