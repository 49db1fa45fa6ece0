"""Search strategies: which configs (index vectors of a `Space`) to score next.

A strategy proposes a batch from the history so far, `[(indices, score)]` where a smaller score
is better (the driver ranks feasible candidates by the objective, then over-budget ones by how
far over, then illegal ones). Everything random draws from the `rng` the driver passes, seeded
per batch, so a seed fixes the search whatever executor scores it.

- `grid`: every config in order (first parameter slowest) until the trials run out.
- `random`: uniform over configs, without repeats.
- `local`: hill climbing from the best configs so far (neighbours one option away, and pairs of
  parameters moved in opposite directions), for spaces of ordered factors.
- `tpe`: a Tree-structured Parzen Estimator over categorical parameters (Bergstra et al. 2011):
  after `n_startup` random configs, split the history into the best `gamma` fraction and the
  rest, model each parameter's option frequencies in both (with a uniform prior), draw
  `n_candidates` configs from the good model and keep the one maximising l(x)/g(x). A share
  of each batch (`mutate`) are neighbours of the best configs so far: options re-drawn inside
  one parameter group (a loop nest's pipeline/lanes/partition couple strongly), or a group
  copied from another good config (stages of a dataflow design are nearly independent).

Example::

    rng = numpy.random.default_rng(0)
    TPE().propose(space, history, 8, rng, seen=set())   # 8 new index vectors
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import DSEError


class Grid:
    name = "grid"

    def propose(self, space, history, n, rng, seen) -> list:
        out = []
        for idx in space.grid():
            if idx not in seen:
                out.append(idx)
                if len(out) == n:
                    break
        return out


def _random_vector(space, rng) -> tuple:
    return tuple(int(rng.integers(len(p.options))) for p in space.params)


def _seeds_unseen(space, taken, n) -> list:
    out = []
    for cfg in space.seeds:
        idx = space.indices(cfg)
        if idx not in taken and idx not in out:
            out.append(idx)
            if len(out) == n:
                break
    return out


def _random_unseen(space, rng, taken, tries: int = 200):
    for _ in range(tries):
        idx = _random_vector(space, rng)
        if idx not in taken:
            return idx
    return None


class Random:
    name = "random"

    def propose(self, space, history, n, rng, seen) -> list:
        out = _seeds_unseen(space, seen, n)
        taken = set(seen) | set(out)
        for _ in range(n - len(out)):
            idx = _random_unseen(space, rng, taken)
            if idx is None:
                break
            out.append(idx)
            taken.add(idx)
        return out


class TPE:
    """See module docstring. `n_startup=None`: max(8, 2 x the number of parameters), capped."""

    name = "tpe"

    def __init__(self, gamma: float = 0.2, n_startup: int | None = None, n_candidates: int = 32,
                 prior: float = 1.0, mutate: float = 0.25):
        self.gamma, self.n_startup, self.n_candidates = gamma, n_startup, n_candidates
        self.prior, self.mutate = prior, mutate

    def propose(self, space, history, n, rng, seen) -> list:
        startup = self.n_startup if self.n_startup is not None else min(48, max(8, 2 * len(space.params)))
        taken, out = set(seen), []
        if len(history) < startup:
            return Random().propose(space, history, n, rng, seen)
        ranked = sorted(history, key=lambda h: h[1])
        n_good = max(1, math.ceil(self.gamma * len(ranked)))
        good, bad = ranked[:n_good], ranked[n_good:]
        log_ratio = [self._log_ratio(len(p.options), k, good, bad) for k, p in enumerate(space.params)]
        n_mut = int(round(self.mutate * n))
        for j in range(n):
            idx = self._mutation(space, good, rng, taken) if j < n_mut else self._best_of_draws(space, good, log_ratio, rng, taken)
            if idx is None:
                idx = _random_unseen(space, rng, taken)
            if idx is None:
                break
            out.append(idx)
            taken.add(idx)
        return out

    def _log_ratio(self, n_opts, k, good, bad):
        def density(rows):
            counts = np.full(n_opts, self.prior / n_opts)
            for idx, _ in rows:
                counts[idx[k]] += 1.0
            return counts / counts.sum()

        lg = density(good)
        return lg, np.log(lg) - np.log(density(bad))

    def _best_of_draws(self, space, good, log_ratio, rng, taken):
        best, best_val = None, -np.inf
        for _ in range(self.n_candidates):
            idx = tuple(int(rng.choice(len(lg), p=lg)) for lg, _ in log_ratio)
            if idx in taken:
                continue
            val = sum(r[i] for (_, r), i in zip(log_ratio, idx))
            if val > best_val:
                best, best_val = idx, val
        return best

    def _mutation(self, space, good, rng, taken):
        """A neighbour of one of the 3 best configs: one or two options of one parameter group
        re-drawn, or one or two parameters anywhere, or one group copied from another good config."""
        if not space.params:
            return None
        groups = {}
        for k, p in enumerate(space.params):
            groups.setdefault(p.group or p.name, []).append(k)
        keys = list(groups)
        for _ in range(20):
            child = list(good[int(rng.integers(min(3, len(good))))][0])
            move = int(rng.integers(3))
            if move == 2 and len(good) > 1:
                other = good[int(rng.integers(len(good)))][0]
                for k in groups[keys[int(rng.integers(len(keys)))]]:
                    child[k] = other[k]
            else:
                pool = groups[keys[int(rng.integers(len(keys)))]] if move == 0 else range(len(child))
                pool = list(pool)
                for k in rng.choice(pool, size=min(len(pool), 1 + int(rng.integers(2))), replace=False):
                    child[int(k)] = int(rng.integers(len(space.params[int(k)].options)))
            idx = tuple(child)
            if idx not in taken:
                return idx
        return None


class Local:
    """Hill climbing over ordered options (lane factors, sorted): after `n_startup` random configs,
    unseen neighbours of the best configs so far, drawn at random (half the batch around the best,
    a quarter around the second, ...): one parameter one option up or down, or two parameters
    moved in opposite directions (trading lanes between the nests under one budget). Random
    configs fill a batch when no neighbour is left."""

    name = "local"

    def __init__(self, n_startup: int = 32, centers: int = 4):
        self.n_startup, self.centers = n_startup, centers

    def propose(self, space, history, n, rng, seen) -> list:
        if len(history) < self.n_startup:
            return Random().propose(space, history, n, rng, seen)
        taken, out = set(seen), []
        sizes = [len(p.options) for p in space.params]
        for rank, (idx, _) in enumerate(sorted(history, key=lambda h: h[1])[:self.centers]):
            cands = [c for c in _neighbours(idx, sizes) if c not in taken]
            share = n if rank == self.centers - 1 else max(1, n >> (rank + 1))  # most from the best
            for j in rng.permutation(len(cands))[:min(share, n - len(out))]:
                out.append(cands[int(j)])
                taken.add(cands[int(j)])
        while len(out) < n:
            idx = _random_unseen(space, rng, taken)
            if idx is None:
                break
            out.append(idx)
            taken.add(idx)
        return out


def _neighbours(idx, sizes):
    def moved(changes):
        child = list(idx)
        for k, d in changes:
            child[k] += d
            if not 0 <= child[k] < sizes[k]:
                return None
        return tuple(child)

    ks = range(len(idx))
    singles = [[(k, d)] for k in ks for d in (1, -1)]
    trades = [[(a, 1), (b, -1)] for a in ks for b in ks if a != b]
    for changes in singles + trades:
        cand = moved(changes)
        if cand is not None:
            yield cand


STRATEGIES = {"grid": Grid, "random": Random, "tpe": TPE, "local": Local}


def make_strategy(strategy, space, trials: int):
    """A strategy object from "auto" | "grid" | "random" | "tpe" | "local" (or an object with propose())."""
    if not isinstance(strategy, str):
        if not callable(getattr(strategy, "propose", None)):
            raise DSEError(f"explore: strategy must be one of {sorted(STRATEGIES)} or 'auto', or an object with "
                           f"propose(), got {strategy!r}")
        return strategy
    if strategy == "auto":
        return Grid() if space.size <= trials else TPE()
    if strategy not in STRATEGIES:
        raise DSEError(f"explore: unknown strategy {strategy!r}; use 'auto', 'grid', 'random', 'tpe' or 'local'")
    return STRATEGIES[strategy]()
