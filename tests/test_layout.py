"""The layout's rules, read from the source (ast, nothing imported): who writes ledger rows, what generation may
import, and that other packages reach IPFS through its public face `mintprep.ipfs`. docs/architecture.md says why."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

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
# Modules outside mintprep/ipfs/ allowed to import an IPFS submodule directly: module -> why. (None today.)
IPFS_SUBMODULE_EXCEPTIONS: dict[str, str] = {}


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
    assert len(names) > 80 and "commands/run.py" in names and "ipfs/dag.py" in names
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


def test_other_packages_reach_ipfs_through_its_public_face():
    offenders = sorted(
        (module, name) for module, tree in modules() if not module.startswith("ipfs/")
        for name in imported_modules(tree)
        if name.startswith("mintprep.ipfs.") and module not in IPFS_SUBMODULE_EXCEPTIONS)
    assert offenders == [], "import these names from mintprep.ipfs (add them to its _FACE when new)"


def test_the_public_face_names_only_what_its_submodules_define():
    face = next(tree for module, tree in modules() if module == "ipfs/__init__.py")
    table = next(node.value for node in ast.walk(face) if isinstance(node, ast.Assign)
                 and any(isinstance(t, ast.Name) and t.id == "_FACE" for t in node.targets))
    assert isinstance(table, ast.Dict)
    defined = {module: tree for module, tree in modules() if module.startswith("ipfs/")}
    for key, value in zip(table.keys, table.values):
        assert isinstance(key, ast.Constant) and isinstance(value, ast.Constant)
        source = defined.get(f"ipfs/{value.value}.py") or defined[f"ipfs/{value.value}/__init__.py"]
        names = {node.name for node in source.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
        names |= {t.id for node in source.body if isinstance(node, (ast.Assign, ast.AnnAssign))
                  for t in (node.targets if isinstance(node, ast.Assign) else [node.target]) if isinstance(t, ast.Name)}
        names |= {alias.asname or alias.name for node in source.body if isinstance(node, ast.ImportFrom)
                  for alias in node.names}
        assert key.value in names, f"mintprep.ipfs.{key.value}: not defined in mintprep.ipfs.{value.value}"
