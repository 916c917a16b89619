/**
 * Where to go after signing in: only a path on this site. Browsers read `//evil`, `/\evil` and
 * `/<tab>/evil` as another host, and a router may decode `%2F`/`%5C` first, so anything that
 * could become one of those (or a scheme such as `javascript:`) falls back to `/`. Safe in the
 * browser and on the server.
 */
const FALLBACK = "/";

/** The path to go to after sign-in: `raw` when it is a same-origin relative path, otherwise `/`. */
export function safeNextPath(raw: string | string[] | null | undefined): string {
  if (typeof raw !== "string" || raw.length === 0 || raw.length > 2000) return FALLBACK;
  // every decoding a router or browser might apply, until it stops changing (bounded)
  let decoded = raw;
  for (let i = 0; i < 5; i++) {
    if (!isPlainPath(decoded)) return FALLBACK;
    let next: string;
    try {
      next = decodeURIComponent(decoded);
    } catch {
      return FALLBACK;
    }
    if (next === decoded) break;
    decoded = next;
  }
  if (!isPlainPath(decoded)) return FALLBACK;
  // the URL parser has the last word: the result must stay on our origin
  const base = "http://envforge.invalid";
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return FALLBACK;
  }
  if (url.origin !== base) return FALLBACK;
  return url.pathname + url.search + url.hash;
}

/** One leading slash, then no second slash, no backslash anywhere, no control or line-separator characters. */
function isPlainPath(p: string): boolean {
  if (!p.startsWith("/") || p.startsWith("//")) return false;
  if (p.includes("\\")) return false;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(p)) return false;
  return true;
}
