import type { AnnotationView } from "@/components/rollouts/annotation-panel";

/** The annotations pinned to one turn, shown right under that turn in the trajectory viewer. */
export function TurnAnnotations({ annotations }: { annotations: AnnotationView[] }) {
  return (
    <ul
      className="mt-1 space-y-0.5 border-l-2 border-indigo-300 pl-2 text-xs"
      data-testid="turn-annotations"
      aria-label="Annotations on this turn"
    >
      {annotations.map((a) => (
        <li key={a.id} className="flex flex-wrap items-baseline gap-2">
          {a.label && <span className="rounded bg-indigo-100 px-1.5 py-0.5 text-indigo-800">{a.label}</span>}
          {a.score !== null && <span className="font-mono">score {a.score}</span>}
          {a.note && <span className="whitespace-pre-wrap break-words text-zinc-800">{a.note}</span>}
          <span className="text-zinc-500">{a.actor}</span>
        </li>
      ))}
    </ul>
  );
}
