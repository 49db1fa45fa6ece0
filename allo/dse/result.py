"""What a search returns: every trial, the best schedule, the Pareto front, a table, a scatter
plot and a JSON-lines log (which `explore(..., log=path)` resumes and `allo.dse.load` reads).

Example::

    r = allo.dse.explore(gemm, trials=200, budget={"DSP": 300})
    print(r.best)                 # an allo.Schedule: its steps
    r.best_trial.latency, r.best_trial.resources["DSP"]
    for p in r.pareto: print(p.latency, p.dsp, p.bram)
    print(r.table(10)); r.plot("dse.png"); r.save("dse.jsonl")
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

from ..errors import DSEError
from .space import format_step, recipe_key, steps_from_json, steps_to_json, to_json

LOG_VERSION = 1


@dataclass
class Trial:
    """One scored candidate. `status`: "ok", "illegal" (a primitive refused it: `error` says why)
    or "error"; `feasible`: ok and within the budget; `score`: the objective (smaller is better);
    `verified`: None (not checked), True/False after the numeric check (`note` says why)."""

    index: int
    round: int
    config: dict
    steps: list
    status: str
    latency: int | None = None
    interval: int | None = None
    work: int | None = None  # summed latency of the top-level rows (breaks ties between equal latencies)
    resources: dict = field(default_factory=dict)
    available: dict = field(default_factory=dict)
    feasible: bool = False
    score: float | None = None
    error: str = ""
    seconds: float = 0.0
    verified: bool | None = None
    note: str = ""
    _result: object = field(default=None, repr=False, compare=False)
    _schedule: object = field(default=None, repr=False, compare=False)

    @property
    def dsp(self) -> int:
        return self.resources.get("DSP", 0)

    @property
    def bram(self) -> int:
        return self.resources.get("BRAM_18K", 0)

    @property
    def schedule(self):
        """This candidate as an `allo.Schedule` (the recipe replayed with every check)."""
        if self._schedule is None:
            if self._result is None or self._result.base is None:
                raise DSEError("this trial was loaded without its kernel: pass the kernel to allo.dse.load(path, kernel)")
            self._schedule = self._result.base.schedule(self.steps)
        return self._schedule

    def recipe(self) -> str:
        return "\n".join(format_step(s) for s in self.steps) or "(no steps)"

    def to_json(self) -> dict:
        return {"index": self.index, "round": self.round, "config": {k: to_json(v) for k, v in self.config.items()},
                "steps": steps_to_json(self.steps), "status": self.status, "latency": self.latency,
                "interval": self.interval, "work": self.work, "resources": self.resources, "available": self.available,
                "error": self.error, "seconds": round(self.seconds, 4)}

    @classmethod
    def from_json(cls, d: dict) -> "Trial":
        return cls(d["index"], d.get("round", 0), dict(d["config"]), steps_from_json(d["steps"]), d["status"],
                   d.get("latency"), d.get("interval"), d.get("work"), dict(d.get("resources") or {}),
                   dict(d.get("available") or {}), error=d.get("error", ""), seconds=d.get("seconds", 0.0))


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


def _reason(error: str) -> str:
    """A refusal without its candidate-specific tail (`...; loops: i, j.outer, ...`), so that the
    same refusal of different candidates counts once."""
    return _first_line(error).split("; ")[0]


def pareto_front(trials, keys=("latency", "DSP", "BRAM_18K")) -> list:
    """Trials no other trial beats on every key (latency and resources), fastest first."""
    def vec(t):
        return tuple(t.latency if k == "latency" else t.resources.get(k, 0) for k in keys)

    pts = sorted({vec(t): t for t in reversed(trials)}.items())  # one trial per point (the earliest)
    front = []
    for v, t in pts:
        if not any(all(a <= b for a, b in zip(w, v)) for w, _ in front):
            front.append((v, t))
    return [t for _, t in front]


class DSEResult:
    """See module docstring. `trials` in proposal order; `stats` has timings and candidates/s."""

    def __init__(self, base, trials, objective, budget, settings, space_desc, header, stats=None):
        self.base = base
        self.trials = trials
        self.objective = objective
        self.budget = dict(budget)
        self.settings = settings
        self.space = space_desc
        self.header = header
        self.stats = dict(stats or {})
        for t in trials:
            t._result = self

    # ------------------------------------------------------------------ views
    def ranked(self) -> list:
        """Feasible trials, best objective first (ties: lower latency, then fewer DSPs)."""
        ok = [t for t in self.trials if t.feasible]
        return sorted(ok, key=lambda t: (t.score, t.latency, t.dsp, t.index))

    @property
    def best_trial(self) -> Trial | None:
        """The best feasible trial that passed verification (or was not checked)."""
        for t in self.ranked():
            if t.verified is not False:
                return t
        return None

    @property
    def best(self):
        """The best schedule (`allo.Schedule`; `print(r.best)` shows its steps)."""
        t = self.best_trial
        if t is None:
            raise DSEError(self.why_no_best())
        return t.schedule

    def why_no_best(self) -> str:
        """Why no trial is best: how many were estimated, refused (with the most common reason and
        its count) or failed verification, and what to change (the space, or the budget and trials)."""
        n, ok = len(self.trials), sum(t.status == "ok" for t in self.trials)
        refused = [t for t in self.trials if t.status != "ok"]
        failed = [t for t in self.trials if t.feasible and t.verified is False]
        text = f"no candidate met the budget {self.budget} ({n} trials, {ok} estimated"
        if refused:
            groups = Counter(_reason(t.error) for t in refused)
            key, count = groups.most_common(1)[0]
            example = next(t for t in refused if _reason(t.error) == key)
            illegal = sum(t.status == "illegal" for t in refused)
            text += f", {illegal} illegal" + (f", {len(refused) - illegal} failed" if illegal < len(refused) else "")
            text += f"; the most common reason, in {count} of {len(refused)}: {_first_line(example.error) or example.status}"
        if failed:
            text += f", {len(failed)} within budget but failed verification: {failed[0].note}"
        if ok == 0 and refused:
            return text + "): every candidate was refused, so fix the space (its steps), not the budget"
        if failed:
            return text + "): a schedule within budget computed other results than the kernel (please report it)"
        return text + "): raise the budget or the trials"

    @property
    def pareto(self) -> list:
        """The Pareto front over (latency, DSP, BRAM_18K) of the feasible trials, fastest first;
        each point has `.latency`, `.dsp`, `.bram`, `.resources` and `.schedule`."""
        return pareto_front([t for t in self.trials if t.feasible])

    def table(self, n: int = 10) -> str:
        """The best `n` distinct feasible designs as text: trials whose configs give the same
        schedule (the same recipe) are one row, under the first trial, with the others counted."""
        rows = [("#", "trial", "latency", "interval", "DSP", "BRAM_18K", "FF", "LUT", "verified", "steps")]
        firsts, same = [], {}
        for t in self.ranked():
            key = recipe_key(t.steps)
            if key in same:
                same[key] += 1
            else:
                same[key] = 0
                firsts.append((key, t))
        for k, (key, t) in enumerate(firsts[:n]):
            trial = f"{t.index} (+{same[key]} same)" if same[key] else str(t.index)
            rows.append((str(k + 1), trial, str(t.latency), str(t.interval), str(t.dsp), str(t.bram),
                         str(t.resources.get("FF", 0)), str(t.resources.get("LUT", 0)),
                         {None: "-", True: "yes", False: "NO"}[t.verified], str(len(t.steps))))
        widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
        lines = ["  ".join(v.rjust(w) for v, w in zip(r, widths)) for r in rows]
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(lines)

    def summary(self) -> str:
        n_ok = sum(t.status == "ok" for t in self.trials)
        n_feas = sum(t.feasible for t in self.trials)
        head = (f"DSE of {self.header.get('kernel')}: {len(self.trials)} trials ({n_ok} estimated, {n_feas} within "
                f"budget {self.budget}), objective {self.objective}")
        head += "".join(f"\nleft out of the space: {a}: {why}" for a, why in (self.header.get("left_out") or {}).items())
        t = self.best_trial
        if t is None:
            return head + "\nno feasible candidate: " + self.why_no_best()
        return (head + f"\nbest: trial {t.index}, {t.latency} cycles, DSP {t.dsp}, BRAM_18K {t.bram}"
                + f"\n{t.recipe()}")

    def __str__(self):
        return self.summary()

    def __repr__(self):
        t = self.best_trial
        best = f"best {t.latency} cycles / DSP {t.dsp}" if t else "no feasible candidate"
        return f"<DSEResult {self.header.get('kernel')}: {len(self.trials)} trials, {best}>"

    # ------------------------------------------------------------------ plot
    def plot(self, path: str | None = None, ax=None):
        """Latency vs DSP of every estimated trial (Pareto front highlighted, budget dashed).
        Needs matplotlib (`pip install 'allo[dse]'`); saves to `path` if given; returns the axes."""
        try:
            import matplotlib

            if ax is None and path is not None:
                matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            raise DSEError("DSEResult.plot needs matplotlib: pip install 'allo[dse]' (or pip install matplotlib)") from None
        fig = None
        if ax is None:
            fig, ax = plt.subplots(figsize=(6, 4))
        ok = [t for t in self.trials if t.status == "ok"]
        ax.scatter([t.dsp for t in ok], [t.latency for t in ok], s=10, alpha=0.4,
                   c=["tab:blue" if t.feasible else "tab:gray" for t in ok], label="candidates")
        front = self.pareto
        ax.plot([t.dsp for t in front], [t.latency for t in front], "o-", color="tab:red", label="Pareto front")
        if "DSP" in self.budget:
            ax.axvline(self.budget["DSP"], ls="--", color="k", lw=1, label="DSP budget")
        ax.set_xlabel("DSP")
        ax.set_ylabel("latency (cycles)")
        ax.set_yscale("log")
        ax.set_title(f"DSE of {self.header.get('kernel')}")
        ax.legend(loc="best", fontsize=8)
        if path is not None:
            (fig or ax.figure).savefig(path, dpi=120, bbox_inches="tight")
            if fig is not None:
                plt.close(fig)
        return ax

    # ------------------------------------------------------------------ JSON
    def to_json(self) -> dict:
        return {"header": self.header, "stats": self.stats, "trials": [t.to_json() for t in self.trials],
                "verification": {str(t.index): [t.verified, t.note] for t in self.trials if t.verified is not None}}

    def save(self, path: str) -> None:
        """Write the JSON-lines log (header, one line per trial, verification results)."""
        with open(path, "w") as f:
            f.write(json.dumps({"header": self.header}) + "\n")
            for t in self.trials:
                f.write(json.dumps({"trial": t.to_json()}) + "\n")
            for r in sorted({t.round for t in self.trials}):
                f.write(json.dumps({"round_done": r}) + "\n")
            f.write(json.dumps({"verification": self.to_json()["verification"], "stats": self.stats}) + "\n")


def read_log(path: str):
    """(header, trials, verification, completed rounds) of a JSON-lines log (a log cut mid-line
    keeps its whole lines; a round counts as completed once its `round_done` line is there)."""
    header, trials, verification, rounds = None, [], {}, set()
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                break  # an interrupted write: keep what came before
            if "header" in rec:
                header = rec["header"]
            elif "trial" in rec:
                trials.append(Trial.from_json(rec["trial"]))
            elif "round_done" in rec:
                rounds.add(rec["round_done"])
            elif "verification" in rec:
                verification = rec["verification"]
    if header is None or header.get("allo_dse") != LOG_VERSION:
        raise DSEError(f"{path} is not an allo.dse log (version {LOG_VERSION})")
    return header, trials, verification, rounds
