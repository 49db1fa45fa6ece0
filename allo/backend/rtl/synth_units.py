"""Module-by-module xc7 synthesis for synth.py: each module of a design (the float unit modules of
static/float/, then the top) is mapped by its own Yosys run, with the modules it instantiates as
blackboxes, and its mapped netlist (RTLIL) is cached by the module's text; a last run reads the
mapped modules, flattens them under the top and counts. So a unit is mapped once per machine,
not once per design (layer_norm, softmax and GELU share f32_add, f32_mul and f32_div), and a
module ABC9 cannot map is retried with Yosys' classic `abc` LUT mapper before synthesis fails,
with a BackendError that names the module.

The counts equal those of one hierarchical `synth_xilinx` run over the whole design (which also
maps every module on its own: the hierarchy is kept, constants do not cross a module boundary;
layer_norm 4x16: 21,439 LUT against 21,443, the same FF, DSP and logic levels). An instance with
literal parameters (f32_poly's `#(6)`, a pipelined unit's `#(.LAT(7))`) maps a copy of its module
with them as defaults (`allo_f32_poly_m__N6`); a module instantiated with parameter expressions
is mapped inside each module that instantiates it, for its parameters there. Designs whose top has parameters are not split (`split_design` gives None) and
synth.py runs them in one piece.

Imports: allo.errors, allo.backend.toolchain.

Example::

    split = split_design(verilog, "layer_norm")   # split.order: dependencies first, top last
    stat_text = synthesize_by_module(split, "layer_norm", work_dir, timeout, yosys, netlist_script)
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from ...errors import BackendError
from ..toolchain import cache_dir, private_tmp, run_child

_MODULE = re.compile(r"^module\s+(\w+)\b.*?^endmodule\b[^\n]*\n?", re.M | re.S)
_SYNTH = "synth_xilinx -top {name} -family xc7 -noiopad -noclkbuf"
# ABC9's closing `&verify` is off: see synth.py.
_HEAD = "scratchpad -set abc9.verify 0\n{libs}read_verilog -sv module.sv\n"
# the mapped module and the modules derived from its parameterised sub-modules (not the blackboxes)
_WRITE = "select *\nwrite_rtlil -selected mapped.il\n"
# The flow synth_xilinx runs, with its ABC9 step (label map_luts) replaced by classic ABC.
_FALLBACK = ("{synth} -run :map_luts\nopt_expr -mux_undef -noclkinv\nabc -luts 2:2,3,6:5,10,20\nclean\n"
             "xilinx_srl -fixed -minlen 3\ntechmap -map +/xilinx/lut_map.v -map +/xilinx/cells_map.v -D LUT_WIDTH=6\n"
             "xilinx_dffopt\nopt_lut_ins -tech xilinx\n{synth} -run finalize:check\n")
_ASSEMBLE = ("read_verilog -lib -specify +/xilinx/cells_sim.v\nread_verilog -lib +/xilinx/cells_xtra.v\n{reads}"
             "hierarchy -check -top {top}\nflatten\nopt_clean\ntee -q -o stat.json stat -json -tech xilinx\n{netlist}")
# per module: synth_xilinx's own flow, then the fallback; flow -> how an error message names it
FLOWS = {"abc9": "synth_xilinx (ABC9 LUT mapping)", "abc": "the fallback, synth_xilinx with classic ABC"}


@dataclass
class Split:
    """A design cut into the modules mapped one by one: `order` (dependencies first, the top last)
    and the text of every module (`texts`). The `inline` modules are not mapped alone but inside
    each module that instantiates them (`parts`): those instantiated with parameter expressions
    (their mapping depends on them) and those not named allo_* (not allo's units: CIRCT's many
    small handshake / arith modules, where a Yosys run each would cost a start apiece)."""

    order: list
    texts: dict
    uses: dict  # module -> the modules it instantiates
    inline: set

    def parts(self, name: str) -> tuple:
        """(the modules synthesised in `name`'s run: itself and the inline modules it reaches
        through inline modules; the other modules those instantiate, as blackboxes)."""
        own, libs, todo = [name], [], [name]
        while todo:
            for m in self.uses[todo.pop()]:
                if m in self.inline and m not in own:
                    own.append(m)
                    todo.append(m)
                elif m not in self.inline and m not in libs:
                    libs.append(m)
        return own, sorted(libs)


def split_design(verilog: str, top: str) -> Split | None:
    """The modules `top` reaches, cut for mapping one by one; None when the design cannot be split
    (no module `top`, a module defined twice, a top with parameters, or a module name used in a
    way other than an instance line)."""
    mods = {}
    for m in _MODULE.finditer(verilog):
        if m.group(1) in mods:
            return None
        mods[m.group(1)] = m.group(0)
    if top not in mods:
        return None
    mods = _specialise(mods)
    uses = {name: _instantiated(text, mods) for name, text in mods.items()}
    for name, text in mods.items():  # a module named other than in an instance line: not split (safe)
        words = set(re.findall(r"\w+", re.sub(r"//[^\n]*|/\*.*?\*/", "", _body(text), flags=re.S)))
        if (words & set(mods)) - set(uses[name]) - {name}:
            return None
    # (a module with parameters that is instantiated without any is mapped alone, with its defaults)
    params = {m for text in mods.values() for m in re.findall(r"^\s*(\w+)\s*#", _body(text), re.M) if m in mods}
    if top in params:
        return None
    order = []

    def visit(n, path):
        if n in path:
            raise BackendError(f"synth: module {n!r} instantiates itself (through {' -> '.join(path)})")
        if n not in order:
            for d in uses[n]:
                visit(d, path + (n,))
            order.append(n)

    visit(top, ())
    inline = params | {n for n in order if n != top and not n.startswith("allo_")}
    return Split([n for n in order if n not in inline], {n: mods[n] for n in order}, uses, inline)


_LITERAL_INSTANCE = re.compile(r"^(\s*)(\w+)\s*#\s*\(((?:[^()]|\(\s*\d+\s*\))*)\)\s*(\w+\s*\()", re.M)
_HEADER = re.compile(r"module\s+\w+\s*#\s*\(([^()]*)\)")
_DECL = re.compile(r"parameter\s+(?:int\s+|integer\s+)?(\w+)\s*=\s*.+", re.S)


def _specialise(mods: dict) -> dict:
    """`mods` with every instance whose parameters are integer literals (`P #(7) u(` or
    `P #(.LAT(7)) u(`, P's parameters plain `parameter [int] NAME = value`s) turned into an
    instance of a copy of P with those values as its defaults (`P__LAT7`), which is mapped and
    cached on its own like any module without parameters."""
    out = dict(mods)

    def copy(m):
        mod, args = m.group(2), m.group(3).strip()
        header = _HEADER.match(out.get(mod, ""))
        decls = [d.strip() for d in header.group(1).split(",")] if header else []
        names = [_DECL.fullmatch(d) for d in decls]
        if not decls or not all(names):
            return m.group(0)
        names = [n.group(1) for n in names]
        if re.fullmatch(r"\d+(?:\s*,\s*\d+)*", args):
            values = dict(zip(names, re.findall(r"\d+", args)))
        elif re.fullmatch(r"\.\w+\s*\(\s*\d+\s*\)(?:\s*,\s*\.\w+\s*\(\s*\d+\s*\))*", args):
            values = dict(re.findall(r"\.(\w+)\s*\(\s*(\d+)\s*\)", args))
        else:
            return m.group(0)
        if not set(values) <= set(names) or len(re.findall(r"\d+", args)) > len(names):
            return m.group(0)
        new = f"{mod}__" + "_".join(f"{k}{int(v)}" for k, v in sorted(values.items()))
        if new not in out:
            params = ", ".join(f"parameter int {n} = {int(values[n])}" if n in values else d for n, d in zip(names, decls))
            out[new] = re.sub(rf"^module\s+{mod}\s*#\s*\([^()]*\)", f"module {new} #({params})", out[mod], count=1)
        return f"{m.group(1)}{new} {m.group(4)}"

    for _ in range(8):  # (copies may hold literal instances too)
        before = dict(out)
        for name in list(out):
            out[name] = _LITERAL_INSTANCE.sub(copy, out[name])
        if out == before:
            break
    return out


def _body(text: str) -> str:
    return text[text.find(";") + 1:]  # after the port list


_INSTANCE = re.compile(r"^\s*(\w+)\s*(?:#\s*\((?:[^()]|\([^()]*\))*\))?\s*\w+\s*\(", re.M)


def _instantiated(text: str, mods: dict) -> list:
    """The modules of `mods` that the module `text` instantiates (itself too: a loop is an error)."""
    return sorted({m for m in _INSTANCE.findall(_body(text)) if m in mods})


def module_script(name: str, libs: bool, flow: str) -> str:
    """The Yosys script that maps module `name` (module.sv; its sub-modules as blackboxes from
    libs.sv when `libs`) with `flow` ("abc9": synth_xilinx; "abc": the classic-ABC fallback)."""
    synth = _SYNTH.format(name=name)
    head = _HEAD.format(libs="read_verilog -lib -sv libs.sv\n" if libs else "")
    body = synth + "\n" if flow == "abc9" else _FALLBACK.format(synth=synth)
    return head + body + _WRITE


def synthesize_by_module(split: Split, top: str, work: Path, timeout: int, yosys: list, netlist: str) -> str:
    """Map every module of `split` (in its order), then flatten them under `top`: the text of the
    `stat -json` file (work/stat.json); `netlist` is the script tail that writes the top's netlist
    (work/netlist.json) for the timing proxy."""
    mapped = [_mapped(split, name, top, work, timeout, yosys) for name in split.order]
    for k, path in enumerate(mapped):
        (work / f"m{k}.il").write_text(path.read_text())
    # (-nooverwrite: a parameterised module two runs derived with the same parameters, twice)
    reads = "".join(f"read_rtlil -nooverwrite m{k}.il\n" for k in range(len(mapped)))
    (work / "assemble.ys").write_text(_ASSEMBLE.format(reads=reads, top=top, netlist=netlist))
    r = run_child([*yosys, "-q", "assemble.ys"], cwd=work, timeout=timeout, what=f"Yosys flattening of {top!r}")
    stat = work / "stat.json"
    if r.returncode != 0 or not stat.exists():
        raise BackendError(f"Yosys synthesis of {top!r} for 'xc7' failed when flattening the mapped modules "
                           f"(exit code {r.returncode}):\n{(r.stderr or r.stdout or '')[-3000:]}")
    return stat.read_text()


def _mapped(split: Split, name: str, top: str, work: Path, timeout: int, yosys: list) -> Path:
    """The cached mapped netlist (RTLIL) of module `name`, made by the first flow that works."""
    own, deps = split.parts(name)
    source = "".join(split.texts[n] for n in own)
    libs = "".join(split.texts[d] for d in deps)
    key = hashlib.sha256("\0".join([source, libs, module_script(name, bool(libs), "abc9"),
                                    " ".join(yosys)]).encode()).hexdigest()[:24]
    cached = cache_dir("rtl") / f"xc7mod_{name}_{key}.il"
    if cached.exists():
        return cached
    d = work / name
    d.mkdir()
    (d / "module.sv").write_text(source)
    if libs:
        (d / "libs.sv").write_text(libs)
    failures = []
    for flow in FLOWS:
        (d / f"{flow}.ys").write_text(module_script(name, bool(libs), flow))
        (d / "mapped.il").unlink(missing_ok=True)
        r = run_child([*yosys, "-q", "-l", f"{flow}.log", f"{flow}.ys"], cwd=d, timeout=timeout,
                      what=f"Yosys synthesis of module {name!r} of {top!r}")
        if r.returncode == 0 and (d / "mapped.il").exists():
            tmp = private_tmp(cached)  # (two threads or processes may write the same entry)
            tmp.write_text((d / "mapped.il").read_text())
            tmp.replace(cached)
            return cached
        failures.append((FLOWS[flow], r.returncode, (r.stderr or "") + (r.stdout or ""), _log(d / f"{flow}.log")))
        if not abc_crashed(failures[-1][2]):
            break  # not ABC: the fallback mapper would fail the same way
    raise failure(name, top, failures)


def _log(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


def abc_crashed(output: str) -> bool:
    """Whether a failed Yosys run died inside ABC (a WebAssembly trap with abc:: frames, or a
    native yosys-abc that failed)."""
    return bool(re.search(r"\babc::\w", output)) or "ABC: execution of command" in output or \
        bool(re.search(r"ERROR: ABC.* failed", output))


def failure(name: str, top: str, failures: list, part: str = "xc7") -> BackendError:
    """The BackendError for module `name` of design `top` that no flow could map: which flows were
    tried (`failures`: a (flow description, exit code, console output, log text) each), where
    they stopped (the last pass of the log, the trapping function), what to do."""
    what = f"Yosys synthesis of {top!r} for {part!r} failed"
    if name != top:
        what += f" in the unit module {name!r}"
    lines = []
    for mapper, rc, output, log in failures:
        passes = re.findall(r"^[\d.]+\. Executing (.+?)\.?$", log, re.M)
        where = f" in pass {passes[-1]!r}" if passes else ""
        frames = re.findall(r"\d+: 0x[0-9a-f]+ - \S+?!([\w:]+)", output)
        frame = next((f for f in frames if f.startswith("abc::") and "assert" not in f), frames[0] if frames else "")
        how = "ran out of WebAssembly stack (a recursive walk over the module's logic)" \
            if "call stack exhausted" in output else \
            f"trapped in {frame}" if frame else f"exit code {rc}"
        tail = "" if frame or "call stack exhausted" in output else ":\n" + output[-1500:]
        lines.append(f"- {mapper}: {how}{where}{tail}")
    hint = ("Synthesise the written design (mod.write(dir)) with a native Yosys (set ALLO_YOSYS to its path), or "
            "split the module's deepest logic into sub-modules (as f32_fmod's reduction steps are)")
    return BackendError(f"{what}:\n" + "\n".join(lines) + f"\n{hint}")


__all__ = ["split_design", "Split", "module_script", "synthesize_by_module", "abc_crashed", "failure",
           "FLOWS"]
