"""The documentation is self-contained: every relative link resolves inside the repository."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CODE_SPAN = re.compile(r"`[^`\n]*`")
OUTSIDE = re.compile(r"(\.\./|/work/)shared/")
# results/ holds run outputs (git-ignored, as build/ is), not documentation
SKIP_DIRS = {".venv", ".git", "build", "node_modules", "results"}


def markdown_files() -> list[Path]:
    return sorted(p for p in ROOT.rglob("*.md")
                  if not SKIP_DIRS & set(p.relative_to(ROOT).parts) and "egg-info" not in str(p))


def test_docs_has_the_promised_pages():
    for page in ("README.md", "architecture.md", "wire-format.md", "v1model.md", "stf.md",
                 "cli.md", "results.md"):
        assert (ROOT / "docs" / page).is_file(), page


def test_every_relative_link_resolves_inside_the_repository():
    broken = []
    for md in markdown_files():
        # a link shown as code (`[x](FOLDER/y.png)`: a template to fill) is not followed
        for target in LINK.findall(CODE_SPAN.sub("", md.read_text())):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue  # URLs and in-page anchors
            path = (md.parent / target.split("#")[0]).resolve()
            if not path.exists() or ROOT not in path.parents and path != ROOT:
                broken.append(f"{md.relative_to(ROOT)}: {target}")
    assert not broken, "\n".join(broken)


def test_nothing_points_at_files_beside_the_repository():
    hits = []
    for path in ROOT.rglob("*"):
        rel = path.relative_to(ROOT)
        if SKIP_DIRS & set(rel.parts) or "egg-info" in str(rel) or not path.is_file():
            continue
        if path.suffix in (".md", ".py", ".p4", ".lua", ".sh", ".stf", ".toml") or \
                path.name in ("Makefile", "Vagrantfile"):
            for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                if OUTSIDE.search(line):
                    hits.append(f"{rel}:{n}")
    assert not hits, "\n".join(hits)
