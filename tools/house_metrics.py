"""The figures the house keeping is measured by, read from the source (nothing of mintprep imported): import cycles
between packages and inside each, imports against the packages' order (tests/test_layout.py PACKAGE_ORDER), modules
reached from outside their package other than through its face, the longest function and module.

    PYTHONPATH=$PWD .venv/bin/python tools/house_metrics.py [--list]
"""

from __future__ import annotations

import sys

from tests.support.import_graph import (
    against_order, cycles, face_bypasses, import_graph, inside, longest_function, longest_module, package_graph,
    package_of,
)
from tests.test_layout import PACKAGE_ORDER


def main(show: bool) -> None:
    graph = import_graph()
    packages = package_graph(graph)
    between = cycles(packages)
    print(f"modules: {len(graph)} (packages: {len(packages)})")
    print(f"cycles between packages: {len(between)}", *(", ".join(c) for c in between), sep="\n  ")
    inner = {package: found for package in sorted(packages) if (found := cycles(inside(graph, package)))}
    print(f"packages with a cycle inside: {len(inner)}")
    for package, found in inner.items():
        print(f"  {package}: " + "; ".join(f"{len(c)} modules ({', '.join(m.rsplit('.', 1)[-1] for m in c)})"
                                          for c in found))
    wrong = against_order(graph, PACKAGE_ORDER)
    print(f"imports against the order: {len(wrong)} (package pairs: "
          f"{len({(package_of(a), package_of(b)) for a, b in wrong})})")
    if show:
        print(*(f"  {a} -> {b}" for a, b in wrong), sep="\n")
    bypass = face_bypasses(import_graph(through_faces=False))
    reached = {target for _, target in bypass}
    print(f"modules reached from outside their package, not through its face: {len(reached)} of {len(graph)} "
          f"({len(bypass)} imports)")
    if show:
        print(*(f"  {a} -> {b}" for a, b in bypass), sep="\n")
    lines, name = longest_function()
    print(f"longest function: {name} ({lines} lines)")
    lines, name = longest_module()
    print(f"longest module: {name} ({lines} lines)")


if __name__ == "__main__":
    main("--list" in sys.argv)
