/**
 * search-agent as a single-turn task: a multi-hop question over a simulated corpus generated from
 * the config's seed. The corpus holds one gold document per hop, distractors in the config's
 * proportion (the same relation about look-alike people, or another relation of the same person)
 * and neutral documents; the answer is the last person of the chain, scored by exact match or
 * token F1 as the config says.
 */
import type { SearchAgentConfig } from "../search-agent";
import { createRng, type Rng } from "../rng";
import { ANSWER_TAG_NOTE, type TaskInstance } from "./types";

const FIRST = [
  "Ada",
  "Bruno",
  "Celia",
  "Dario",
  "Elena",
  "Farid",
  "Greta",
  "Hugo",
  "Ines",
  "Jonas",
  "Kira",
  "Leon",
  "Mira",
  "Nils",
  "Olga",
  "Pavel",
  "Rosa",
  "Sven",
  "Tara",
  "Umar",
  "Vera",
  "Wim",
  "Yara",
  "Zeno",
];
const LAST = [
  "Albrecht",
  "Brandt",
  "Castell",
  "Dorn",
  "Eberle",
  "Falk",
  "Greer",
  "Hale",
  "Ivers",
  "Jansen",
  "Kessler",
  "Lind",
  "Moreau",
  "Novak",
  "Orsini",
  "Petrov",
  "Quist",
  "Rauch",
  "Sato",
  "Thorne",
  "Ulloa",
  "Voss",
  "Weller",
  "Young",
];
const RELATIONS = ["mentor", "business partner", "oldest friend", "landlord", "doctor", "piano teacher", "employer", "neighbour"];
const NEUTRAL = [
  "was born in a coastal town",
  "collects old maps",
  "once ran a marathon in under four hours",
  "keeps bees on a rooftop",
  "speaks three languages",
  "restores vintage bicycles",
];

/** Most documents a simulated corpus holds (keeps prompts small). */
export const MAX_CORPUS_DOCS = 40;

function uniqueNames(rng: Rng, count: number): string[] {
  const names = new Set<string>();
  while (names.size < count) names.add(`${rng.pick(FIRST)} ${rng.pick(LAST)}`);
  return [...names];
}

/** The search-agent task instance of a config (question, simulated corpus, reference answer). */
export function searchTask(config: SearchAgentConfig): TaskInstance {
  const rng = createRng(`search-agent:${config.seed}:corpus`);
  const corpusSize = Math.min(MAX_CORPUS_DOCS, Math.max(config.hops + 2, config.docs_per_turn * Math.min(config.max_turns, 4)));
  const people = uniqueNames(rng, config.hops + 1 + corpusSize);
  const chain = people.slice(0, config.hops + 1);
  const others = people.slice(config.hops + 1);
  const relations = Array.from({ length: config.hops }, () => rng.pick(RELATIONS));
  const docs: string[] = relations.map((rel, i) => `The ${rel} of ${chain[i]} is ${chain[i + 1]}.`);
  const slots = corpusSize - config.hops;
  const distractors = Math.round(config.distractor_ratio * slots);
  for (let k = 0; k < slots; k++) {
    const hop = rng.int(0, config.hops - 1);
    const other = others[k % others.length];
    if (k < distractors) {
      // a distractor: the hop's relation for a look-alike (same first name) or another relation of the hop's person
      const lookAlike = `${chain[hop].split(" ")[0]} ${rng.pick(LAST.filter((l) => !chain[hop].endsWith(l)))}`;
      const otherRelation = rng.pick(RELATIONS.filter((r) => r !== relations[hop]));
      docs.push(rng.bool() ? `The ${relations[hop]} of ${lookAlike} is ${other}.` : `The ${otherRelation} of ${chain[hop]} is ${other}.`);
    } else docs.push(`${other} ${rng.pick(NEUTRAL)}.`);
  }
  const corpus = rng.shuffle(docs);
  let question = chain[0];
  for (const rel of relations) question = `the ${rel} of ${question}`;
  const content = [
    "Documents:",
    ...corpus.map((doc, i) => `[${i + 1}] ${doc}`),
    "",
    `Question: who is ${question}?`,
    `Follow the chain one relation at a time (${config.hops} hop${config.hops === 1 ? "" : "s"}); some documents are ` +
      `about look-alike people or other relations.`,
    `The answer is the person's full name, scored by ${config.answer_match === "exact" ? "exact match" : "token F1"}. Example: <answer>Ada Lind</answer>`,
  ].join("\n");
  return {
    messages: [
      { role: "system", content: `You answer multi-hop questions from the documents given. ${ANSWER_TAG_NOTE}` },
      { role: "user", content },
    ],
    groundTruth: {
      family: "search-agent",
      answer_format: "short-answer",
      answer_match: config.answer_match,
      hops: config.hops,
      reference: chain[config.hops],
    },
  };
}
