import { Fragment, type ReactNode } from "react";

/**
 * A CamelCase or snake_case name with line-break opportunities where its words meet ("Agent·Timeout·Error",
 * "context_·length"), so a narrow column wraps it between words instead of mid-word.
 */
export function WordBreaks({ text }: { text: string }): ReactNode {
  const parts = text.split(/(?<=[a-z0-9])(?=[A-Z])|(?<=[_.:/-])/);
  if (parts.length === 1) return text;
  return parts.map((p, i) => (
    <Fragment key={i}>
      {i > 0 && <wbr />}
      {p}
    </Fragment>
  ));
}
