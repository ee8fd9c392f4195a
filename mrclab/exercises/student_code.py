"""Loading a student's Python module from their folder, in place of the project's code."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from mrclab.exercises.worker import CheckFailed, student_error


def load_student_module(path: Path, needs: tuple[str, ...]) -> ModuleType:
    """Import `path` under a private name; CheckFailed (one line) when it does not import
    or lacks one of the functions `needs` names."""
    name = f"student_{path.stem}_{abs(hash(str(path.resolve())))}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise CheckFailed(f"{path}: cannot be imported")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        raise CheckFailed(f"{path.name}:{exc.lineno}: SyntaxError: {exc.msg}") from None
    except Exception as exc:
        raise CheckFailed(f"{path.name} does not import: {student_error(exc)}") from None
    missing = [n for n in needs if not callable(getattr(module, n, None))]
    if missing:
        raise CheckFailed(f"{path.name} lacks {', '.join(missing)}()")
    sys.modules[name] = module
    return module
