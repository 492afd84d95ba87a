"""The core and io layers are Qt-free; the layer contracts in pyproject.toml hold; no module
imports itself back through others."""

import subprocess
import sys
import tomllib

import grimp
from conftest import ROOT


def test_core_and_io_import_without_qt_or_pyqtgraph():
    code = (
        "import sys; import roofline_gui.core.comparison, roofline_gui.io.session, "
        "roofline_gui.io.csv_export, roofline_gui.__main__; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6', 'pyqtgraph')]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_import_linter_contracts_hold():
    result = subprocess.run(
        [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
         "sys.exit(lint_imports_command())"],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 5 kept, 0 broken." in result.stdout


def _cycles(graph) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), imports inside functions
    included: an import deferred into a function still ties the two modules together."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.find_modules_directly_imported_by(v):
            if not w.startswith("roofline_gui"):
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                out.append(sorted(part))

    for module in sorted(graph.modules):
        if module.startswith("roofline_gui") and module not in index:
            visit(module)
    return out


def test_no_module_imports_itself_back():
    sys.setrecursionlimit(10_000)
    assert _cycles(grimp.build_graph("roofline_gui")) == []


def test_the_cycle_check_finds_a_cycle():
    graph = grimp.ImportGraph()
    for name in ("roofline_gui.a", "roofline_gui.b", "roofline_gui.c"):
        graph.add_module(name)
    graph.add_import(importer="roofline_gui.a", imported="roofline_gui.b")
    graph.add_import(importer="roofline_gui.b", imported="roofline_gui.a")
    graph.add_import(importer="roofline_gui.c", imported="roofline_gui.a")
    assert _cycles(graph) == [["roofline_gui.a", "roofline_gui.b"]]


def test_every_core_module_has_its_layer():
    """The core's layer contract lists every module of the core, so a new one is placed (a
    module left out of a layers contract is not checked at all)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    contract = next(c for c in config["contracts"] if c.get("containers") == ["roofline_gui.core"])
    listed = {name.strip() for layer in contract["layers"] for name in layer.split("|")}
    core = ROOT / "roofline_gui" / "core"
    modules = {p.stem for p in core.glob("*.py") if p.stem != "__init__"} | {
        p.parent.name for p in core.glob("*/__init__.py")}
    assert modules == listed
