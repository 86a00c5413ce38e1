"""No circle of imports in pos_terminal, between modules or between packages, imports under TYPE_CHECKING counted.

import-linter's layers keep ui → services → (api, store, reports) → domain pointing down; inside a layer nothing
did, and a module that imports its caller back (even only for a type) may reach anything that caller holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import grimp

PACKAGE = "pos_terminal"


def circles(edges: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of the graph with more than one node (or a node importing itself), each
    sorted, found by Tarjan's algorithm (iterative: the graph is a few hundred modules deep at most)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work: list[tuple[str, Iterable[str]]] = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    part: list[str] = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        part.append(member)
                        if member == node:
                            break
                    if len(part) > 1 or node in edges.get(node, ()):
                        found.append(sorted(part))
    return sorted(found)


def one_circle(edges: Mapping[str, set[str]], part: list[str]) -> list[str]:
    """A shortest way round from the part's first member back to it, inside the part: what the message names."""
    start, members = part[0], set(part)
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for child in sorted(edges.get(node, ())):
            if child == start:
                return [*paths[node], start]
            if child in members and child not in paths:
                paths[child] = [*paths[node], child]
                queue.append(child)
    raise AssertionError(part)


def message(edges: Mapping[str, set[str]], parts: list[list[str]], what: str) -> str:
    lines = [f"{len(parts)} circle(s) of imports between {what} (TYPE_CHECKING imports counted):"]
    for part in parts:
        lines.append(f"- {len(part)} {what}: {', '.join(part)}")
        lines.append(f"  for one: {' -> '.join(one_circle(edges, part))}")
    return "\n".join(lines)


def module_edges(graph: grimp.ImportGraph) -> dict[str, set[str]]:
    return {module: graph.find_modules_directly_imported_by(module) for module in graph.modules}


def package_edges(graph: grimp.ImportGraph) -> dict[str, set[str]]:
    """Each package's modules taken together (its own and its subpackages'), as a package of its own: a circle
    runs between two packages when each imports the other, whichever modules carry the imports."""
    packages = sorted((m for m in graph.modules if graph.find_children(m)), key=len, reverse=True)

    def home(module: str) -> str:
        return next(p for p in packages if module == p or module.startswith(p + "."))

    edges: dict[str, set[str]] = {package: set() for package in packages}
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            a, b = home(module), home(imported)
            # a package uses its subpackages (and they their parent's __init__): only siblings and strangers count
            if a != b and not b.startswith(a + ".") and not a.startswith(b + "."):
                edges[a].add(b)
    return edges


def test_no_module_of_pos_terminal_imports_itself_round_a_circle() -> None:
    graph = grimp.build_graph(PACKAGE, exclude_type_checking_imports=False, cache_dir=None)
    edges = module_edges(graph)
    parts = circles(edges)
    assert parts == [], message(edges, parts, "modules")


def test_no_package_of_pos_terminal_imports_itself_round_a_circle() -> None:
    graph = grimp.build_graph(PACKAGE, exclude_type_checking_imports=False, cache_dir=None)
    edges = package_edges(graph)
    parts = circles(edges)
    assert parts == [], message(edges, parts, "packages")


def test_a_circle_is_found_and_named() -> None:
    """The guard itself: a circle of three and one of two, beside a module that is in none."""
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": {"e"}, "e": {"d"}, "f": {"a"}}
    assert circles(edges) == [["a", "b", "c"], ["d", "e"]]
    assert one_circle(edges, ["a", "b", "c"]) == ["a", "b", "c", "a"]
    assert "a -> b -> c -> a" in message(edges, circles(edges), "modules")
