"""The layout's rules, read from the source (ast, nothing imported): the packages' one order and no import cycle,
who writes ledger rows, what generation may import, and that other packages reach a package through its face (its
`__init__`, one table of what it offers). docs/architecture.md says why."""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

import pytest

from tests.support.import_graph import (against_order, cycles, face_table, import_graph, inside, package_graph,
                                       package_of)

PACKAGE = Path(__file__).resolve().parents[1] / "mintprep"

# Every Ledger method that writes a row (mintprep.state.ledger).
LEDGER_WRITES = {
    "record_generation", "record_verdicts", "record_pin", "record_pins", "record_unpin", "set_pieces", "drop_pieces_after",
    "set_first_attempt", "record_manifest", "record_imports", "record_deployment", "record_chain_tx",
    "record_publish", "begin_journal", "advance_journal", "finish_journal", "record_minted_seen",
}
# Ledger writes outside commands/ and state/, each with the reason it is there: (module, method) -> why.
LEDGER_WRITE_EXCEPTIONS = {
    ("stages/pin.py", "record_pin"): "a pin is recorded in the thread that verified it, as each one is verified, "
                                     "so a run stopped half way keeps what it pinned",
    ("stages/pin.py", "record_pins"): "the same, a batch of verified pins per commit (every 256 rows or 1 s)",
    ("stages/screen.py", "record_verdicts"): "a verdict is content-addressed memo (image sha256 + thresholds), "
                                             "written where it is computed so a rerun recomputes none",
    ("stages/screen.py", "set_first_attempt"): "a resample moves the token's first attempt in the same step that "
                                               "logs the rejection; the stage is the one place resampling is decided",
    ("stages/generate.py", "record_generation"): "a generation's row is written as each result arrives (its object "
                                                 "first), so a run stopped half way keeps what it sampled",
    ("stages/publish.py", "record_manifest"): "the manifest is recorded once its pin is verified, by the one publish "
                                              "step run, repair, import and reveal share",
    ("stages/page.py", "record_publish"): "where the page went, recorded by the one publish step `publish` and "
                                          "`audit --repair` share",
    ("stages/base_uri.py", "record_chain_tx"): "the set-base-uri transaction, recorded by the one step "
                                               "`contract set-base-uri` and `audit --repair` share",
}
# What generate/ must not import: every package that writes files or ledger rows. Generation is a pure function
# of its request; the caller stores what it returns.
WRITERS = ("mintprep.state", "mintprep.stages", "mintprep.commands", "mintprep.ipfs", "mintprep.page",
           "mintprep.chain", "mintprep.cli", "mintprep.executors")
# Calls that write a file, by attribute name.
FILE_WRITES = {"write_bytes", "write_text", "write_atomic", "write_atomic_with", "mkdir", "touch", "unlink"}
# Packages others import from that have no face yet: package -> why. (None today.)
FACELESS: dict[str, str] = {}


# The packages' order, lowest first: a module imports only from its own package and from packages in lower tiers.
PACKAGE_ORDER = [["base"], ["net", "guards"], ["ipfs", "generate"], ["executors"], ["collection"], ["state"],
                 ["chain"], ["page"], ["stages"], ["commands"], ["cli"], ["mintprep"]]


def modules() -> list[tuple[str, ast.Module]]:
    return [(path.relative_to(PACKAGE).as_posix(), ast.parse(path.read_text(), str(path)))
            for path in sorted(PACKAGE.rglob("*.py"))]


def imported_modules(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append(node.module)
    return found


def run_time_imports(tree: ast.AST) -> list[str]:
    """`imported_modules`, less those under `if TYPE_CHECKING:` (they never run)."""
    checking = [node for node in ast.walk(tree) if isinstance(node, ast.If) and isinstance(node.test, ast.Name)
                and node.test.id == "TYPE_CHECKING"]
    hidden = {id(inner) for node in checking for child in node.body for inner in ast.walk(child)}
    return [name for node in ast.walk(tree) if id(node) not in hidden for name in imported_modules(node)
            if isinstance(node, (ast.Import, ast.ImportFrom))]


def called_attributes(tree: ast.AST) -> list[str]:
    return [node.func.attr for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)]


def test_the_walk_sees_the_whole_package():
    names = dict(modules())
    assert len(names) > 80 and "commands/run/driver.py" in names and "ipfs/dag.py" in names
    assert "record_pin" in called_attributes(names["stages/pin.py"])  # the rules below would notice a write


def test_only_command_drivers_and_state_write_ledger_rows():
    offenders = sorted(
        (module, method) for module, tree in modules() if not module.startswith(("commands/", "state/"))
        for method in set(called_attributes(tree)) & LEDGER_WRITES
        if (module, method) not in LEDGER_WRITE_EXCEPTIONS)
    assert offenders == [], "ledger rows written outside mintprep/commands and mintprep/state (return the value " \
                            "and let the command driver record it, or list the exception with its reason)"


def test_every_listed_ledger_write_exception_is_still_needed():
    calls = {module: set(called_attributes(tree)) for module, tree in modules()}
    stale = [key for key in LEDGER_WRITE_EXCEPTIONS if key[1] not in calls.get(key[0], set())]
    assert stale == []


def command_of(module: str) -> str:
    """The command a module of commands/ belongs to: its own name, or its folder's (commands/importing/...)."""
    return module.removeprefix("commands/").split("/")[0].removesuffix(".py")


def test_no_command_driver_imports_another():
    offenders = sorted(
        (module, name) for module, tree in modules() if module.startswith("commands/")
        for name in run_time_imports(tree) if name.startswith("mintprep.commands.")
        and name.split(".")[2] != command_of(module))
    assert offenders == [], "a driver calls stages (mintprep.stages) and folds their results; move what two " \
                            "drivers share into stages/ or the package it belongs to"


@pytest.mark.parametrize("rule", ["imports", "writes"])
def test_generation_writes_no_file(rule: str):
    generation = [(module, tree) for module, tree in modules() if module.startswith("generate/")]
    assert generation
    if rule == "imports":
        offenders = sorted({(module, name) for module, tree in generation for name in imported_modules(tree)
                            if name.startswith(WRITERS)})
    else:
        offenders = sorted({(module, name) for module, tree in generation for name in called_attributes(tree)
                            if name in FILE_WRITES})
    assert offenders == [], "generate/ must stay a pure function of its request: the caller stores what it returns"


def faces() -> dict[str, dict[str, str]]:
    """Package -> its face's table (name -> submodule), for every package with a face (mintprep.base.lazy_face)."""
    return {module.split("/")[0]: table for module, tree in modules()
            if module.count("/") == 1 and module.endswith("/__init__.py") and (table := face_table(tree))}


def test_every_package_others_import_from_has_a_face(graph):
    imported_from = {package_of(target) for module, targets in graph.items() for target in targets
                     if package_of(target) not in (package_of(module), "mintprep")}
    missing = sorted(imported_from - set(faces()) - set(FACELESS) - {"cli"})  # cli: run by python -m mintprep
    assert missing == [], "give the package a face: __all__, __getattr__ = face(__name__, {name: submodule})"


def test_other_packages_import_a_package_through_its_face():
    faced = set(faces())
    offenders = sorted(
        (module, name) for module, tree in modules() for name in imported_modules(tree)
        if name.count(".") >= 2 and name.split(".")[1] in faced and not module.startswith(name.split(".")[1] + "/"))
    assert offenders == [], "import these names from the package (add them to its face when new)"


def test_a_face_names_only_what_its_submodules_define():
    defined = dict(modules())
    for package, table in faces().items():
        assert table, package
        for name, home in table.items():
            path = f"{package}/{home.replace('.', '/')}"
            source = defined.get(f"{path}.py") or defined[f"{path}/__init__.py"]
            names = {node.name for node in source.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
            names |= {t.id for node in source.body if isinstance(node, (ast.Assign, ast.AnnAssign))
                      for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
                      if isinstance(t, ast.Name)}
            names |= {alias.asname or alias.name for node in source.body if isinstance(node, ast.ImportFrom)
                      for alias in node.names}
            assert name in names, f"mintprep.{package}.{name}: not defined in mintprep.{package}.{home}"
            assert name not in {m.split("/")[1].removesuffix(".py") for m in defined if m.startswith(f"{package}/")}, \
                f"mintprep.{package}.{name} is also a submodule's name: importing the module would hide it"


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph()


def test_the_order_names_every_package(graph):
    assert set(package_graph(graph)) == {package for tier in PACKAGE_ORDER for package in tier}


def test_imports_follow_the_packages_order(graph):
    assert against_order(graph, PACKAGE_ORDER) == [], "a module imports from a package at or above its own tier " \
        "(move the shared piece down, or pass a value in; docs/architecture.md gives the order)"


def test_no_import_cycle_between_packages(graph):
    assert cycles(package_graph(graph)) == []


@pytest.mark.parametrize("package", [package for tier in PACKAGE_ORDER for package in tier])
def test_no_import_cycle_inside_a_package(graph, package):
    assert cycles(inside(graph, package)) == []


def test_the_rules_fail_on_a_planted_upward_import(graph):
    planted = {**graph, "mintprep.ipfs.store": graph["mintprep.ipfs.store"] | {"mintprep.state.objects"}}
    assert against_order(planted, PACKAGE_ORDER) == [("mintprep.ipfs.store", "mintprep.state.objects")]
    same_tier = {**graph, "mintprep.net.http": graph["mintprep.net.http"] | {"mintprep.guards.settings"}}
    assert against_order(same_tier, PACKAGE_ORDER) == [("mintprep.net.http", "mintprep.guards.settings")]


def test_the_rules_fail_on_a_planted_cycle(graph):
    between = {**graph, "mintprep.base.errors": graph["mintprep.base.errors"] | {"mintprep.cli.app"}}
    assert any({"base", "cli"} <= set(cycle) for cycle in cycles(package_graph(between)))
    within = {**graph, "mintprep.ipfs.cid": graph["mintprep.ipfs.cid"] | {"mintprep.ipfs.store"}}
    [cycle] = cycles(inside(within, "ipfs"))
    assert {"mintprep.ipfs.cid", "mintprep.ipfs.store"} <= set(cycle)


def test_errors_are_defined_in_the_one_error_module():
    trees = dict(modules())
    family = {node.name for node in trees["base/errors.py"].body if isinstance(node, ast.ClassDef)}
    raised = family | {name for name, value in vars(builtins).items()
                       if isinstance(value, type) and issubclass(value, BaseException)}
    elsewhere = sorted(f"{module}: {node.name}" for module, tree in trees.items() if module != "base/errors.py"
                       for node in ast.walk(tree) if isinstance(node, ast.ClassDef) and not node.name.startswith("_")
                       and any(isinstance(base, ast.Name) and base.id in raised for base in node.bases))
    assert elsewhere == [], "define errors in mintprep/base/errors.py (its docstring draws the family); a module's " \
                            "private control-flow exception starts with an underscore"


# What only a driver in mintprep/commands builds: the CLI parses, calls one driver and renders its report.
BUILT_BY_DRIVERS = {"Workspace", "Ledger", "BlockStore", "ObjectStore", "LocalBackend", "make_backend"}


@pytest.mark.parametrize("rule", ["imports", "builds"])
def test_the_cli_builds_no_workspace_ledger_or_store(rule: str):
    cli = [(module, tree) for module, tree in modules() if module.startswith("cli/")]
    assert len(cli) > 5
    if rule == "imports":
        offenders = sorted({(module, name) for module, tree in cli for name in imported_modules(tree)
                            if name == "mintprep.state" or name.startswith("mintprep.state.")})
    else:
        offenders = sorted({(module, node.id) for module, tree in cli for node in ast.walk(tree)
                            if isinstance(node, ast.Name) and node.id in BUILT_BY_DRIVERS})
    assert offenders == [], "open the ledger, the Workspace or a store in a driver (mintprep/commands), not in cli/"
