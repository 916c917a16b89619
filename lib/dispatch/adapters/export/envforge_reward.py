"""EnvForge reward function for verl (stdlib only).

Use it in verl as the custom reward function:

    custom_reward_function.path=<export folder>/envforge_reward.py
    custom_reward_function.name=compute_score

verl calls compute_score(data_source, solution_str, ground_truth, extra_info) per response, with
ground_truth = the row's reward_model.ground_truth (a JSON string written by EnvForge's export).
The answer is the last <answer>...</answer> block of the response (the whole response when there is
none). Scores are in [0, 1]:
  frozenlake-mapf  1.0 when the move plan, executed on the map without slips, leaves every agent on
                   its goal within max_steps without entering a hole (and, for block_both, without
                   two agents in one cell or swapping cells); else 0.0.
  persuasion-game  share of the expected message lines that are right: each round's evidence and
                   the belief it leaves (within the tolerance, by the decision maker's equation),
                   and the final "reached" line.
  search-agent     exact match (normalised) or token F1 against the reference answer.
  terminal-task    cannot be scored here (only the task's verifier in a sandbox can): raises.
"""

import json
import math
import re
import string

_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.DOTALL | re.IGNORECASE)


def extract_answer(solution_str):
    """The last <answer> block of a response, or the whole response when it has none."""
    found = _ANSWER.findall(solution_str or "")
    return (found[-1] if found else (solution_str or "")).strip()


# ---------------------------------------------------------------- frozenlake-mapf

_MOVES = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1), "W": (0, 0)}


def _parse_plan(answer, names):
    plans = {}
    for line in answer.splitlines():
        m = re.match(r"^\s*([A-Za-z0-9_]+)\s*:\s*([UDLRW,\s]*)$", line.strip(), re.IGNORECASE)
        if m and m.group(1).lower() in names:
            plans[m.group(1).lower()] = re.sub(r"[,\s]", "", m.group(2)).upper()
    return plans


def score_frozenlake(answer, gt):
    grid = gt["map"]
    size = len(grid)
    agents = gt["agents"]
    names = [a["name"].lower() for a in agents]
    plans = _parse_plan(answer, set(names))
    if len(plans) != len(agents):
        return 0.0
    pos = [tuple(a["start"]) for a in agents]
    goals = [tuple(a["goal"]) for a in agents]
    horizon = max(len(plans[n]) for n in names)
    if horizon > gt["max_steps"]:
        return 0.0
    strict = gt.get("collision") == "block_both"
    for t in range(horizon):
        nxt = []
        for i, name in enumerate(names):
            if t >= len(plans[name]):
                nxt.append(pos[i])
                continue
            dr, dc = _MOVES[plans[name][t]]
            r, c = pos[i][0] + dr, pos[i][1] + dc
            # a move off the grid leaves the agent in place
            nxt.append((r, c) if 0 <= r < size and 0 <= c < size else pos[i])
        for i in range(len(agents)):
            if grid[nxt[i][0]][nxt[i][1]] == "H":
                return 0.0
        if strict:
            if len(set(nxt)) < len(nxt):
                return 0.0
            for i in range(len(agents)):
                for j in range(i + 1, len(agents)):
                    if nxt[i] == pos[j] and nxt[j] == pos[i] and nxt[i] != pos[i]:
                        return 0.0
        pos = nxt
    # an agent stays where its last move left it: success when every agent ends on its goal
    return 1.0 if all(pos[i] == goals[i] for i in range(len(agents))) else 0.0


# ---------------------------------------------------------------- persuasion-game

_NEUTRAL = {"alpha": 1.0, "beta": 1.0, "affine_slope": 1.0, "affine_intercept": 0.0, "motivation_strength": 0.0}


def _logistic(x):
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def _log_odds(p):
    p = min(1 - 1e-15, max(1e-15, p))
    return math.log(p / (1 - p))


def _bayes(prior, lr):
    num = prior * lr
    den = num + (1 - prior)
    return prior if den == 0 else num / den


def update_belief(model, params, q, belief, signal):
    """One belief update of the decision maker (the equations stated in the task's prompt)."""
    p = dict(_NEUTRAL, **(params or {}))
    lr = q / (1 - q) if signal == 1 else (1 - q) / q
    if model == "bayesian":
        return _bayes(belief, lr)
    if model == "affine":
        return min(1.0, max(0.0, p["affine_slope"] * _bayes(belief, lr) + p["affine_intercept"]))
    if model == "motivated":
        w = 1 - p["motivation_strength"] if signal == 1 else 1.0
        if belief <= 0 or belief >= 1:
            return belief
        return _logistic(_log_odds(belief) + w * math.log(lr))
    if model == "grether":
        if (belief <= 0 or belief >= 1) and p["beta"] > 0:
            return belief
        prior_term = 0.0 if p["beta"] == 0 else p["beta"] * _log_odds(belief)
        return _logistic(p["alpha"] * math.log(lr) + prior_term)
    raise ValueError("unknown decision model %r" % model)


def expected_log(gt):
    """The expected message lines: [(round, 'supports'|'contradicts', belief)], and the reached round (None = no)."""
    belief = gt["prior"]
    target = gt["target_belief"]
    rounds = []
    if belief >= target - 1e-12:
        return rounds, 0
    for k, signal in enumerate(gt["signals"], start=1):
        belief = update_belief(gt["decision_model"], gt.get("params"), gt["evidence_strength"], belief, signal)
        rounds.append((k, "supports" if signal == 1 else "contradicts", belief))
        if belief >= target - 1e-12:
            return rounds, k
    return rounds, None


def score_persuasion(answer, gt):
    rounds, reached = expected_log(gt)
    tol = float(gt.get("tolerance", 0.005))
    said = {}
    said_reached = "missing"
    for line in answer.splitlines():
        m = re.match(r"^\s*round\s+(\d+)\s*:\s*(supports|contradicts)\s*->\s*([0-9.eE+-]+)\s*$", line, re.IGNORECASE)
        if m:
            try:
                said[int(m.group(1))] = (m.group(2).lower(), float(m.group(3)))
            except ValueError:
                pass
            continue
        m = re.match(r"^\s*reached\s*:\s*(no|round\s+(\d+))\s*$", line, re.IGNORECASE)
        if m:
            said_reached = None if m.group(1).lower() == "no" else int(m.group(2))
    right = 0
    for k, evidence, belief in rounds:
        got = said.get(k)
        if got and got[0] == evidence and abs(got[1] - belief) <= tol:
            right += 1
    if said_reached == reached:
        right += 1
    # lines past the expected log (rounds after the target was reached) count against the answer
    extra = len([k for k in said if k > len(rounds)])
    return right / (len(rounds) + 1 + extra)


# ---------------------------------------------------------------- search-agent


def normalize_answer(text):
    """Lower case, no punctuation or articles, single spaces (SQuAD-style)."""
    text = text.lower()
    text = "".join(ch for ch in text if ch not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def token_f1(prediction, reference):
    pred = normalize_answer(prediction).split()
    ref = normalize_answer(reference).split()
    if not pred or not ref:
        return float(pred == ref)
    common = {}
    for tok in pred:
        if tok in ref:
            common[tok] = min(pred.count(tok), ref.count(tok))
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision = same / len(pred)
    recall = same / len(ref)
    return 2 * precision * recall / (precision + recall)


def score_search(answer, gt):
    if gt.get("answer_match") == "exact":
        return 1.0 if normalize_answer(answer) == normalize_answer(gt["reference"]) else 0.0
    return token_f1(answer, gt["reference"])


# ---------------------------------------------------------------- entry point

_SCORERS = {
    "frozenlake-mapf": score_frozenlake,
    "persuasion-game": score_persuasion,
    "search-agent": score_search,
}


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    """verl's custom reward signature: the score of one response in [0, 1]."""
    gt = json.loads(ground_truth) if isinstance(ground_truth, str) else dict(ground_truth)
    family = gt.get("family") or str(data_source).split("/", 1)[-1]
    if family == "terminal-task":
        raise NotImplementedError(
            "terminal-task rows are scored by the task's verifier in a sandbox (Harbor), not by a text reward; "
            "train them with harbor-job.json or run-dispatch"
        )
    scorer = _SCORERS.get(family)
    if scorer is None:
        raise NotImplementedError("envforge_reward.py has no scorer for data_source %r" % data_source)
    try:
        return float(scorer(extract_answer(solution_str), gt))
    except (KeyError, IndexError, TypeError, ValueError):
        # a malformed answer scores 0; a malformed ground truth is still a bug worth seeing
        if not isinstance(gt, dict) or "family" not in gt:
            raise
        return 0.0


if __name__ == "__main__":
    # python3 envforge_reward.py rows.jsonl: prints one score per line for {data_source, solution_str, ground_truth} rows
    import sys

    with open(sys.argv[1], encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                print(compute_score(row["data_source"], row["solution_str"], row["ground_truth"], row.get("extra_info")))
