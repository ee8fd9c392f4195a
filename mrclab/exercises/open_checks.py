"""Checks of the open experiment: the student's report.md against the artefacts beside it.

They never run the experiment again: they read the report's sections, the mrclab commands
of its Method, the output folders those commands name (results.json, summary.csv,
runs.csv as mrclab writes them) and the plots it shows. A number the report quotes is
written as a marker the checker can look up (mrclab/exercises/material/open/README.md):

    [[FIGURE @ PARAM=VALUE, ... in FOLDER: NUMBER]]     e.g. [[ev mean @ ecn=8: 0.7166]]

`@ ...` and `in FOLDER` are optional; NUMBER must equal, to the digits quoted, a figure of
that configuration: its mean, std, ci95 or n in summary.csv, or one seed's value in
runs.csv (`seed=2` picks one). A trailing `%` compares the figure times 100.
"""

from __future__ import annotations

import csv
import json
import re
import shlex
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path, PurePosixPath

from mrclab.exercises.workspace import Workspace

REPORT = "report.md"
SECTIONS = ("question", "method", "results", "conclusion")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

_HEADING = re.compile(r"^##\s+(.+?)\s*#*\s*$", re.M)
_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.M | re.S)
_MARKER = re.compile(r"\[\[([^\[\]]*)\]\]")
_QUOTE = re.compile(r"^(?P<label>.+?):\s*(?P<num>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)"
                    r"\s*(?P<pct>%?)$", re.S)
_IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_DECIMAL = re.compile(r"(?<![\w.=/])\d*\.\d+(?:[eE][-+]?\d+)?(?![.\d])")
_TODO = re.compile(r"TODO\s*\d+\s*:")
# options that change how a sweep is run, not what it measures
_RUN_ONLY = {"--workers": 1, "--scheduler": 1, "-v": 0, "--verbose": 0}
# setup keys of a single run's results.json, by the option that sets them
_SETUP_KEYS = {"ecn": "ecn_threshold", "trim": "trim_threshold", "queue_depth": "queue_depth",
               "spec": "spec", "mtu": "mtu", "seed": "seed"}
# options a run's figures depend on, and which of them are lists of values within one run
_LIST_OPTIONS = ("modes", "senders")


class Problem(Exception):
    """What is wrong with the submission, in one line."""


# --- the report ---------------------------------------------------------------------------

def sections(text: str) -> dict[str, str]:
    """The body of each `## Heading` section, by the heading's first word in lower case."""
    found: dict[str, str] = {}
    marks = list(_HEADING.finditer(text))
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        key = (m.group(1).split() or [""])[0].strip(":").lower()
        found.setdefault(key, text[m.end():end])
    return found


def _report(ws: Workspace) -> tuple[str, dict[str, str]]:
    path = ws.path(REPORT)
    if not path.is_file():
        raise Problem(f"{REPORT} is missing")
    text = path.read_text(errors="replace")
    return text, sections(text)


def _section(parts: dict[str, str], name: str) -> str:
    if name not in parts:
        raise Problem(f"{REPORT} has no '## {name.capitalize()}' section")
    return parts[name]


def _prose(body: str) -> str:
    """A section's text without code blocks, HTML comments and images."""
    body = _FENCE.sub(" ", body)
    body = re.sub(r"<!--.*?-->", " ", body, flags=re.S)
    return _IMAGE.sub(" ", body)


def _words(body: str) -> int:
    return len(re.findall(r"[A-Za-z]{2,}", _prose(body)))


def _finished_section(ws: Workspace, name: str) -> tuple[str, dict[str, str], str]:
    """The report's text, its sections and section `name`, which must be there and hold
    no placeholder left from the template (`Problem` otherwise)."""
    text, parts = _report(ws)
    body = _section(parts, name)
    todo = _TODO.search(_prose(body))
    if todo:
        line = _prose(body)[todo.start():].splitlines()[0].strip()
        raise Problem(f"the {name.capitalize()} section still holds '{line[:60]}'")
    return text, parts, body


# --- the commands and their output folders ------------------------------------------------

@dataclass
class Command:
    text: str  # as written in the report
    words: list[str]  # after the mrclab word
    sub: str  # sweep | sim | experiment
    experiment: str
    options: dict[str, str] = field(default_factory=dict)  # --name (dashes as _) -> value

    @property
    def out(self) -> str | None:
        return self.options.get("out")

    @property
    def is_sweep(self) -> bool:
        return self.sub == "sweep"


def _lines(code: str) -> list[str]:
    """Shell lines of a code block: continuations joined, comments and prompts dropped."""
    joined = re.sub(r"\\\n", " ", code)
    lines = []
    for line in joined.splitlines():
        line = line.strip()
        line = line[2:] if line.startswith("$ ") else line
        if line and not line.startswith("#"):
            lines.append(line)
    return lines


def _parse_command(line: str) -> Command | None:
    """The mrclab command of `line`; None for a python line (a plot of one's own)."""
    try:
        words = shlex.split(line, comments=True)
    except ValueError as exc:
        raise Problem(f"method line `{line}`: {exc}") from None
    if not words:
        return None
    tool = PurePosixPath(words[0]).name
    if re.fullmatch(r"python[\d.]*", tool):
        return None
    if tool != "mrclab":
        raise Problem(f"method line `{line}` is not an mrclab command")
    rest = words[1:]
    if len(rest) < 2 or rest[0] not in ("sweep", "sim", "experiment"):
        raise Problem(f"`{line}`: expected mrclab sweep|sim|experiment NAME ...")
    options: dict[str, str] = {}
    i = 2
    while i < len(rest):
        word = rest[i]
        if not word.startswith("-"):
            raise Problem(f"`{line}`: unexpected {word!r}")
        name, eq, value = word.lstrip("-").partition("=")
        name = name.replace("-", "_")
        if name in ("quick", "v", "verbose"):
            options[name] = "yes"
            i += 1
            continue
        if not eq:
            if i + 1 >= len(rest):
                raise Problem(f"`{line}`: {word} needs a value")
            value = rest[i + 1]
            i += 1
        if name == "param":  # repeatable
            options[f"param:{value.partition('=')[0].strip()}"] = value.partition("=")[2]
        else:
            options[name] = value
        i += 1
    cmd = Command(line, rest, rest[0], rest[1], options)
    engine = options.get("engine", "sim" if cmd.sub in ("sweep", "sim") else "lab")
    if engine != "sim":
        raise Problem(f"`{line}`: not on the simulator (use mrclab sim, or --engine sim)")
    return cmd


def commands(method: str) -> list[Command]:
    cmds = []
    for block in _FENCE.findall(method):
        for line in _lines(block):
            cmd = _parse_command(line)
            if cmd is not None:
                cmds.append(cmd)
    if not cmds:
        raise Problem("the Method section names no mrclab command in a ``` code block")
    return cmds


def _read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


@dataclass
class Output:
    """One command's output folder, read."""

    name: str  # the --out folder, as written
    command: Command
    results: dict
    summary: list[dict[str, str]]
    runs: list[dict[str, str]]  # sweeps only


def _folder(ws: Workspace, cmd: Command) -> Path:
    out = cmd.out
    if not out:
        raise Problem(f"`{cmd.text}` has no --out FOLDER")
    rel = PurePosixPath(out)
    if rel.is_absolute() or ".." in rel.parts:
        raise Problem(f"`{cmd.text}`: --out {out} must be a folder inside this one "
                      "(run the command from here with a relative --out)")
    folder = ws.folder / rel
    if not folder.is_dir():
        raise Problem(f"{out}/ (the --out of `{cmd.text}`) is not in the submission")
    return folder


def _words_of_record(command: str) -> list[str]:
    """A sweep's recorded command (`mrclab ` + its arguments joined by spaces), split."""
    return command.split()[1:]


def _measured(words: list[str]) -> list[str]:
    """A sweep's words without the options that change only how it ran."""
    kept, i = [], 0
    while i < len(words):
        name = words[i].partition("=")[0]
        if name in _RUN_ONLY:
            i += 1 + (_RUN_ONLY[name] if "=" not in words[i] else 0)
            continue
        kept.append(words[i])
        i += 1
    return kept


def read_output(ws: Workspace, cmd: Command) -> Output:
    folder = _folder(ws, cmd)
    need = ["results.json", "summary.csv"] + (["runs.csv"] if cmd.is_sweep else [])
    missing = [n for n in need if not (folder / n).is_file()]
    if missing:
        raise Problem(f"{cmd.out}/{missing[0]} is missing (the output of `{cmd.text}`)")
    try:
        results = json.loads((folder / "results.json").read_text())
    except ValueError as exc:
        raise Problem(f"{cmd.out}/results.json is not JSON: {exc}") from None
    out = Output(cmd.out or "", cmd, results, _read_csv(folder / "summary.csv"),
                 _read_csv(folder / "runs.csv") if cmd.is_sweep else [])
    if cmd.is_sweep:
        recorded = results.get("command")
        if not isinstance(recorded, str):
            raise Problem(f"{cmd.out}/results.json names no command: not a sweep's output")
        if _measured(_words_of_record(recorded)) != _measured(cmd.words):
            raise Problem(f"{cmd.out}/results.json was written by `{recorded}`, "
                          f"not by the method's `{cmd.text}`")
        failed = [r for r in out.runs if r.get("error")]
        if failed:
            raise Problem(f"{cmd.out}: {len(failed)} of {len(out.runs)} runs failed "
                          f"({failed[0]['error'][:60]}): run them again")
    else:
        _same_setup(cmd, results)
    return out


def _same_setup(cmd: Command, results: dict) -> None:
    setup = results.get("setup")
    if not isinstance(setup, dict):
        raise Problem(f"{cmd.out}/results.json has no setup: not an experiment's output")
    if setup.get("experiment") != cmd.experiment:
        raise Problem(f"{cmd.out} holds the {setup.get('experiment')} experiment, "
                      f"not {cmd.experiment} as `{cmd.text}` says")
    if setup.get("engine") != "sim":
        raise Problem(f"{cmd.out} ran on {setup.get('engine')}, not on the simulator")
    asked = {**{"seed": "1"}, **cmd.options}
    for option, key in _SETUP_KEYS.items():
        if option in asked and str(setup.get(key)) != asked[option]:
            raise Problem(f"{cmd.out}/results.json has {key} {setup.get(key)}, but "
                          f"`{cmd.text}` sets --{option.replace('_', '-')} {asked[option]}")
    if bool(setup.get("quick")) != ("quick" in cmd.options):
        raise Problem(f"{cmd.out}/results.json has quick={setup.get('quick')}, "
                      f"unlike `{cmd.text}`")


def outputs(ws: Workspace) -> list[Output]:
    _, parts = _report(ws)
    return [read_output(ws, c) for c in commands(_section(parts, "method"))]


# --- the design: what varies, over how many seeds -----------------------------------------

def _values(option: str, value: str) -> list[str]:
    sep = "/" if option in _LIST_OPTIONS else ","
    return [v.strip() for v in value.split(sep) if v.strip()]


def _seeds(text: str) -> set[int]:
    from mrclab.experiments.config import ExperimentError
    from mrclab.experiments.sweep.grid import parse_seeds

    try:
        return set(parse_seeds(text))
    except ExperimentError as exc:
        raise Problem(str(exc)) from None


def design_of(cmds: list[Command]) -> tuple[dict[str, set[str]], set[int], str]:
    """The best-designed group of commands: (parameter -> values, seeds, what it is)."""
    best: tuple[dict[str, set[str]], set[int], str] = ({}, set(), "")
    groups: dict[str, list[Command]] = {}
    for cmd in cmds:
        if cmd.is_sweep:
            varied = {k.removeprefix("param:"): set(_values(k[6:], v))
                      for k, v in cmd.options.items() if k.startswith("param:")}
            for name in _LIST_OPTIONS:
                if name in cmd.options:
                    varied.setdefault(name, set(cmd.options[name].split(",")))
            group = (varied, _seeds(cmd.options.get("seeds", "1-5")), f"`{cmd.text}`")
            best = max(best, group, key=_score)
        else:
            groups.setdefault(cmd.experiment, []).append(cmd)
    for experiment, group in groups.items():
        varied: dict[str, set[str]] = {}
        names = {k for c in group for k in c.options} - {"seed", "out", "quick", "v",
                                                         "verbose", "engine"}
        for name in names:
            varied[name] = {c.options.get(name, "") for c in group}
            if name in _LIST_OPTIONS:
                varied[name] |= {v for c in group for v in c.options.get(name, "").split(",")}
            varied[name].discard("")
        seeds = {int(c.options.get("seed", "1")) for c in group if
                 c.options.get("seed", "1").isdigit()}
        best = max(best, (varied, seeds, f"the {len(group)} mrclab sim {experiment} runs"),
                   key=_score)
    return best


def _score(group: tuple[dict[str, set[str]], set[int], str]) -> tuple[int, int]:
    varied, seeds, _ = group
    return (min(2, max((len(v) for v in varied.values()), default=0)), min(2, len(seeds)))


# --- the quoted numbers -------------------------------------------------------------------

@dataclass
class Quote:
    text: str  # the marker as written
    figure: str
    where: dict[str, str]
    folder: str | None
    number: Decimal
    percent: bool


def parse_quote(inner: str) -> Quote:
    text = f"[[{inner}]]"
    m = _QUOTE.match(inner.strip())
    if not m:
        raise Problem(f"{text}: expected [[FIGURE @ PARAM=VALUE: NUMBER]]")
    label, folder = m.group("label").strip(), None
    at_folder = re.search(r"\s+in\s+(\S+)$", label)
    if at_folder:
        label, folder = label[:at_folder.start()].strip(), at_folder.group(1).strip("/")
    figure, _, conds = label.partition("@")
    where = {}
    for cond in filter(None, (c.strip() for c in conds.split(","))):
        key, eq, value = cond.partition("=")
        if not eq:
            raise Problem(f"{text}: '{cond}' is not PARAM=VALUE")
        where[key.strip().replace("-", "_").lower()] = value.strip()
    try:
        number = Decimal(m.group("num"))
    except InvalidOperation:
        raise Problem(f"{text}: {m.group('num')} is not a number") from None
    return Quote(text, " ".join(figure.split()), where, folder, number, bool(m.group("pct")))


def quotes(text: str) -> list[Quote]:
    return [parse_quote(m.group(1)) for m in _MARKER.finditer(text)]


def matches(quote: Quote, value: float) -> bool:
    """`value` rounds to the quoted number at the quoted precision."""
    v = value * 100 if quote.percent else value
    half = Decimal(5).scaleb(quote.number.as_tuple().exponent - 1)
    return abs(Decimal(repr(v)) - quote.number) <= half * Decimal("1.000000001")


def _same(a: str, b: str) -> bool:
    try:
        return float(a) == float(b)
    except ValueError:
        return a.strip().lower() == b.strip().lower()


def _number(text) -> float | None:
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def _fmt(v: float) -> str:
    return f"{v:.4g}"


def _candidates(quote: Quote, out: Output) -> tuple[list[tuple[str, float]], str]:
    """The values `quote` may be of in `out`, named; or [] and why none."""
    if out.command.is_sweep:
        return _sweep_candidates(quote, out)
    return _run_candidates(quote, out)


def _sweep_candidates(quote: Quote, out: Output) -> tuple[list[tuple[str, float]], str]:
    figures = sorted({r.get("figure", "") for r in out.summary})
    if quote.figure.lower() not in {f.lower() for f in figures}:
        return [], (f"no figure '{quote.figure}' in {out.name}/summary.csv "
                    f"(its figures: {', '.join(figures[:8])})")
    params = [c for c in (out.runs[0] if out.runs else {}) if c not in ("run", "faithful",
                                                                         "error", "seconds")]
    unknown = [k for k in quote.where if k not in params]
    if unknown:
        return [], (f"{out.name} has no parameter '{unknown[0]}' "
                    f"(it varied: {', '.join(params) or 'nothing'})")
    found: list[tuple[str, float]] = []
    if "seed" not in quote.where:
        for row in out.summary:
            if row.get("figure", "").lower() == quote.figure.lower() and \
                    all(_same(row.get(k, ""), v) for k, v in quote.where.items()):
                for stat in ("mean", "std", "ci95", "n"):
                    if _number(row.get(stat)) is not None:
                        found.append((stat, float(row[stat])))
    column = next(c for c in out.runs[0] if c.lower() == quote.figure.lower()) \
        if out.runs and any(c.lower() == quote.figure.lower() for c in out.runs[0]) else None
    for row in out.runs if column else ():
        if all(_same(row.get(k, ""), v) for k, v in quote.where.items()) and \
                _number(row.get(column)) is not None:
            found.append((f"seed {row.get('seed')}", float(row[column])))
    where = ", ".join(f"{k}={v}" for k, v in quote.where.items())
    return found, "" if found else f"{out.name} has no runs with {where}"


def _run_candidates(quote: Quote, out: Output) -> tuple[list[tuple[str, float]], str]:
    setup = out.results.get("setup") or {}
    row_keys = {k.lower() for r in out.summary for k in r}
    for key, value in quote.where.items():
        if key in row_keys:
            continue
        setup_key = _SETUP_KEYS.get(key, key)
        if setup_key not in setup:
            return [], f"{out.name} knows no '{key}' (its columns: {', '.join(sorted(row_keys))})"
        if not _same(str(setup[setup_key]), value):
            return [], f"{out.name} ran with {key}={setup[setup_key]}"
    found: list[tuple[str, float]] = []
    first = list(out.summary[0])[0] if out.summary else ""
    for row in out.summary:
        lower = {k.lower(): v for k, v in row.items()}
        if not all(_same(lower.get(k, ""), v) for k, v in quote.where.items() if k in lower):
            continue
        column, figure = None, quote.figure.lower()
        if figure in lower:
            column = figure
        else:  # 'ev mean': the row whose first column is ev, its column mean
            head, _, rest = figure.partition(" ")
            if rest in lower and _same(row.get(first, ""), head):
                column = rest
        if column and _number(lower[column]) is not None:
            found.append((f"{first}={row.get(first)} {column}", float(lower[column])))
    if not found:
        return [], f"no figure '{quote.figure}' in {out.name}/summary.csv (columns: " \
                   f"{', '.join(sorted(row_keys))})"
    return found, ""


def check_quote(quote: Quote, outs: list[Output]) -> str:
    """'' when the quote matches a figure; else one line naming what it does not match."""
    if quote.folder is not None:
        pool = [o for o in outs if o.name.strip("/") == quote.folder]
        if not pool:
            return f"{quote.text}: no output folder {quote.folder} in the method"
    else:
        pool = outs
    why = []
    for out in pool:
        found, reason = _candidates(quote, out)
        if any(matches(quote, v) for _, v in found):
            return ""
        if found:
            digits = max(0, -quote.number.as_tuple().exponent)
            near = ", ".join(f"{name} {_fmt(v * (100 if quote.percent else 1))}"
                             for name, v in found[:8] if name != "n")
            where = "".join(f" {k}={v}" for k, v in quote.where.items())
            why.append(f"{out.name} has {quote.figure}{' at' + where if where else ''}: "
                       f"{near}; none is {quote.number}"
                       f"{' %' if quote.percent else ''} to {digits} decimals")
        else:
            why.append(reason)
    return f"{quote.text}: " + ("; ".join(why) or "no output folder to look in")


def unmarked(results: str) -> list[str]:
    """Decimal numbers in the Results section outside markers, code, links and images."""
    text = _MARKER.sub(" ", _prose(results))
    text = re.sub(r"`[^`]*`", " ", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    return _DECIMAL.findall(text)


# --- the checks ---------------------------------------------------------------------------

def _run(fn) -> tuple[bool, str]:
    try:
        return fn()
    except Problem as exc:
        return False, str(exc)


def question_asked(ws: Workspace, target: str) -> tuple[bool, str]:
    def check():
        _, _, body = _finished_section(ws, "question")
        if _words(body) < 8 or "?" not in _prose(body):
            return False, (f"the Question section holds {_words(body)} words and "
                           f"{'a' if '?' in body else 'no'} question mark: ask one question")
        return True, f"question of {_words(body)} words"
    return _run(check)


def design_varies_a_parameter(ws: Workspace, target: str) -> tuple[bool, str]:
    def check():
        _, _, method = _finished_section(ws, "method")
        if _words(method) < 12:
            return False, (f"the Method section says {_words(method)} words besides its "
                           "commands: describe the design (what varies, over which values, "
                           "how many seeds)")
        varied, seeds, what = design_of(commands(method))
        wide = {k: v for k, v in varied.items() if len(v) >= 2}
        if not wide:
            return False, f"{what} varies nothing: no parameter takes 2 or more values"
        if len(seeds) < 2:
            return False, f"{what} runs {len(seeds)} seed ({', '.join(map(str, seeds))}): " \
                          "use at least 2"
        name, values = max(wide.items(), key=lambda kv: len(kv[1]))
        return True, (f"{what}: {name} over {len(values)} values "
                      f"({', '.join(sorted(values))}), {len(seeds)} seeds")
    return _run(check)


def commands_wrote_their_folders(ws: Workspace, target: str) -> tuple[bool, str]:
    def check():
        outs = outputs(ws)
        for out in outs:
            if out.command.is_sweep:
                seeds = {r.get("seed") for r in out.runs}
                if len(seeds) < 2 or not out.summary:
                    return False, (f"{out.name}/runs.csv holds {len(out.runs)} runs of "
                                   f"{len(seeds)} seed(s): not the whole sweep")
        names = ", ".join(f"{o.name}/" for o in outs)
        return True, f"{len(outs)} command(s), their output in {names}"
    return _run(check)


def numbers_match_results(ws: Workspace, target: str) -> tuple[bool, str]:
    def check():
        text, parts, results = _finished_section(ws, "results")
        outs = outputs(ws)
        quoted = quotes(results)
        if len(quoted) < 2:
            return False, (f"the Results section quotes {len(quoted)} marked number(s): "
                           "quote at least 2 as [[FIGURE @ PARAM=VALUE: NUMBER]]")
        loose = unmarked(results)
        if loose:
            return False, (f"{loose[0]} in the Results section is not marked: write it as "
                           f"[[FIGURE @ PARAM=VALUE: {loose[0]}]]")
        every = quotes(text)
        for quote in every:
            wrong = check_quote(quote, outs)
            if wrong:
                return False, wrong
        return True, f"{len(every)} quoted numbers, each a figure of the results"
    return _run(check)


def plot_shown(ws: Workspace, target: str) -> tuple[bool, str]:
    def check():
        text, parts = _report(ws)
        shown = [p for p in _IMAGE.findall(text) if not re.match(r"\w+://", p)]
        pngs = [p for p in shown if p.lower().endswith(".png")]
        if not pngs:
            here = sorted(str(p.relative_to(ws.folder)) for p in ws.folder.rglob("*.png"))
            hint = f" (in the folder: {', '.join(here[:3])})" if here else ""
            return False, f"{REPORT} shows no PNG plot with ![caption](FILE.png){hint}"
        for path in shown:
            rel = PurePosixPath(path)
            if rel.is_absolute() or ".." in rel.parts:
                return False, f"plot {path}: use a path inside this folder"
            file = ws.folder / rel
            if not file.is_file():
                return False, f"plot {path}, shown in {REPORT}, is not in the folder"
            if path.lower().endswith(".png") and not file.read_bytes()[:8] == PNG_MAGIC:
                return False, f"plot {path} is not a PNG image"
        results = _section(parts, "results")
        if not any(p in results for p in pngs):
            return False, "no plot in the Results section: show it there"
        return True, f"{len(pngs)} plot(s): {', '.join(pngs)}"
    return _run(check)


def conclusion_drawn(ws: Workspace, target: str) -> tuple[bool, str]:
    def check():
        _, _, body = _finished_section(ws, "conclusion")
        if _words(body) < 15:
            return False, f"the Conclusion section holds {_words(body)} words: answer the question"
        return True, f"conclusion of {_words(body)} words"
    return _run(check)
