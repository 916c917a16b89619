"use client";

import { useId, useState } from "react";
import { Button } from "@/components/ui/button";

/**
 * A multi-line comment box: Enter starts a new line, Ctrl+Enter (or ⌘+Enter) posts, Escape leaves
 * the field. Review shortcuts pause while typing here (useShortcuts ignores text fields). An empty
 * comment is explained, not silently dropped.
 */
export function CommentForm({
  label,
  placeholder,
  onPost,
  posting,
  error,
  autoFocus = false,
  size = "sm",
}: {
  label: string;
  placeholder: string;
  /** post the body; call `done` once it is stored, which empties the box */
  onPost: (body: string, done: () => void) => void;
  posting: boolean;
  error: string | null;
  autoFocus?: boolean;
  size?: "xs" | "sm";
}) {
  const [body, setBody] = useState("");
  const [empty, setEmpty] = useState(false);
  const hintId = useId();
  const submit = () => {
    if (!body.trim()) {
      setEmpty(true);
      return;
    }
    setEmpty(false);
    onPost(body.trim(), () => setBody(""));
  };
  return (
    <form
      className="flex flex-col gap-1"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <textarea
        value={body}
        onChange={(e) => {
          setBody(e.target.value);
          if (e.target.value.trim()) setEmpty(false);
        }}
        onKeyDown={(e) => {
          if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
            e.preventDefault();
            submit();
          }
        }}
        rows={Math.min(8, Math.max(2, body.split("\n").length))}
        className={`w-full rounded border border-zinc-300 px-2 py-1 ${size === "xs" ? "text-xs" : "text-sm"}`}
        placeholder={placeholder}
        aria-label={label}
        aria-invalid={empty}
        aria-describedby={empty ? hintId : undefined}
        autoFocus={autoFocus}
      />
      <div className="flex flex-wrap items-center gap-2 text-xs">
        <Button type="submit" variant="primary" size="sm" busy={posting}>
          Post
        </Button>
        <span className="text-zinc-500">Enter: new line · Ctrl+Enter: post</span>
        {empty && (
          <span id={hintId} className="text-red-700" role="alert" data-testid="comment-empty">
            Write something first: an empty comment is not posted.
          </span>
        )}
        {error && <span className="text-red-700">{error}</span>}
      </div>
    </form>
  );
}
