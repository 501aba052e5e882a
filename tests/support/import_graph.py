"""mintprep's import graph, read from the source (ast, nothing imported), and the questions the layout rules ask of
it: which packages and modules form cycles, which imports run against the packages' order, which modules are
reached from outside their package. Every question is a function of a plain graph ({module: {modules it imports}}),
so a test can plant an edge and watch a rule fail.

An import inside `if TYPE_CHECKING:` never runs and is left out; one inside a function runs when the function does
and is kept (a function-level import is the usual way a cycle hides).
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "mintprep"
ROOT = "mintprep"

Graph = dict[str, set[str]]


def module_name(path: Path, root: Path = PACKAGE) -> str:
    parts = [ROOT, *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def source_trees(root: Path = PACKAGE) -> dict[str, tuple[Path, ast.Module]]:
    """Every module under `root`: dotted name -> (file, its syntax tree)."""
    return {module_name(path, root): (path, ast.parse(path.read_text(), str(path))) for path in sorted(root.rglob("*.py"))}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_nodes(tree: ast.AST, type_checking: bool) -> list[ast.Import | ast.ImportFrom]:
    found: list[ast.Import | ast.ImportFrom] = []
    pending = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.If) and _is_type_checking(node) and not type_checking:
            pending.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        pending.extend(ast.iter_child_nodes(node))
    return found


def _known(name: str, modules: set[str]) -> str | None:
    """The longest prefix of `name` that is a module of ours."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in modules:
            return candidate
    return None


def face_table(tree: ast.Module) -> dict[str, str]:
    """A package face's names and the submodule each comes from: the table of its `face(__name__, {...})` call
    (mintprep.base.lazy_face), empty when the package has none."""
    for node in tree.body:
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Name) and node.value.func.id == "face"):
            table = node.value.args[1]
            assert isinstance(table, ast.Dict)
            return {key.value: value.value for key, value in zip(table.keys, table.values)  # type: ignore[union-attr]
                    if isinstance(key, ast.Constant) and isinstance(value, ast.Constant)}
    return {}


def imported(module: str, tree: ast.AST, modules: set[str], *, is_package: bool = False,
             type_checking: bool = False, faces: dict[str, dict[str, str]] | None = None) -> set[str]:
    """The modules of ours that `module` imports: `from a.b import c` names a.b.c when c is a module, else a.b, or,
    when a.b is a face that names c, the submodule c comes from (`faces`: package -> its face table)."""
    targets: set[str] = set()
    for node in _import_nodes(tree, type_checking):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                anchor = module.split(".")[: len(module.split(".")) - node.level + (1 if is_package else 0)]
                base = ".".join([*anchor, base] if base else anchor)
            table = (faces or {}).get(base, {})
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules
                     else f"{base}.{table[alias.name]}" if alias.name in table else base for alias in node.names]
        targets |= {found for name in names if (found := _known(name, modules))}
    targets.discard(module)
    return targets


def import_graph(root: Path = PACKAGE, *, type_checking: bool = False, through_faces: bool = True) -> Graph:
    """Module -> the modules it imports; `through_faces`: a name imported from a package's face counts as an import
    of the submodule the face loads it from (False: of the face itself, to see who bypasses a face)."""
    trees = source_trees(root)
    names = set(trees)
    faces = {name: face_table(tree) for name, (path, tree) in trees.items() if path.name == "__init__.py"}
    return {name: imported(name, tree, names, is_package=path.name == "__init__.py", type_checking=type_checking,
                           faces=faces if through_faces else None)
            for name, (path, tree) in trees.items()}


def package_of(module: str) -> str:
    """`mintprep.ipfs.backends.local` -> `ipfs`; a module at the top (`mintprep.__main__`) -> `mintprep`."""
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and module in _PACKAGES) else ROOT


_PACKAGES = {module_name(path.parent / "__init__.py") for path in PACKAGE.glob("*/__init__.py")}


def package_graph(graph: Graph) -> Graph:
    """Package -> the other packages its modules import."""
    packages: Graph = {}
    for module, targets in graph.items():
        packages.setdefault(package_of(module), set()).update(
            package_of(target) for target in targets if package_of(target) != package_of(module))
    return packages


def inside(graph: Graph, package: str) -> Graph:
    """The modules of one package and the imports between them."""
    members = {module for module in graph if package_of(module) == package}
    return {module: graph[module] & members for module in members}


def cycles(graph: Graph) -> list[list[str]]:
    """Every strongly connected set of two or more nodes (Tarjan), each sorted, the list sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def rank(order: list[list[str]]) -> dict[str, int]:
    """[[lowest tier], [next], ...] -> package -> its tier."""
    return {package: tier for tier, packages in enumerate(order) for package in packages}


def against_order(graph: Graph, order: list[list[str]]) -> list[tuple[str, str]]:
    """Imports from a module to a module of a package at the same tier or above its own (a package's own modules are
    free to import each other); a package missing from `order` is an error the caller sees as a KeyError."""
    tiers = rank(order)
    return sorted((module, target) for module, targets in graph.items() for target in targets
                  if package_of(module) != package_of(target)
                  and tiers[package_of(target)] >= tiers[package_of(module)])


def face_bypasses(graph: Graph) -> list[tuple[str, str]]:
    """(importer, submodule) for every module imported from outside its package other than through the package's
    face (its `__init__`)."""
    return sorted((module, target) for module, targets in graph.items() for target in targets
                  if package_of(target) != package_of(module) and target not in _PACKAGES
                  and package_of(target) != ROOT)


def longest_function(root: Path = PACKAGE) -> tuple[int, str]:
    best = (0, "")
    for name, (_, tree) in source_trees(root).items():
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                best = max(best, (node.end_lineno - node.lineno + 1, f"{name}.{node.name}"))
    return best


def longest_module(root: Path = PACKAGE) -> tuple[int, str]:
    return max((len(path.read_text().splitlines()), name) for name, (path, _) in source_trees(root).items())
