/** A search hit's snippet: plain text with its matched parts in <mark> (React escapes the text: no HTML from the server). */
export function Snippet({ snippet }: { snippet: { text: string; highlights: [number, number][] } }) {
  const parts: { text: string; hit: boolean }[] = [];
  let at = 0;
  for (const [start, end] of [...snippet.highlights].sort((a, b) => a[0] - b[0])) {
    if (start < at || end > snippet.text.length) continue;
    if (start > at) parts.push({ text: snippet.text.slice(at, start), hit: false });
    parts.push({ text: snippet.text.slice(start, end), hit: true });
    at = end;
  }
  if (at < snippet.text.length) parts.push({ text: snippet.text.slice(at), hit: false });
  return (
    <p className="mt-0.5 max-w-xl text-xs break-words text-zinc-600" data-testid="snippet">
      {parts.map((p, i) =>
        p.hit ? (
          <mark key={i} className="rounded-sm bg-amber-200 px-0.5 text-zinc-900">
            {p.text}
          </mark>
        ) : (
          <span key={i}>{p.text}</span>
        ),
      )}
    </p>
  );
}
