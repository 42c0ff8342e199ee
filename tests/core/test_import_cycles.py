"""No import circle among memhub's modules but the one named here, with its reason.

The graph is grimp's (import-linter's graph library): it holds every import, those inside
functions and under ``if TYPE_CHECKING:`` too, so a circle closed by a lazy import counts.
A circle is a strongly connected component of that graph (Tarjan's algorithm).
"""

from __future__ import annotations

from collections.abc import Iterator

import grimp

ALLOWED = {
    # The CLI's command registration: the app imports each command module to register its
    # commands, and they name the app's Invocation and AddCommand types in annotations.
    frozenset(
        {
            "memhub.cli.app",
            "memhub.cli.capture_commands",
            "memhub.cli.hmg_commands",
            "memhub.cli.memhub_commands",
            "memhub.cli.transfer_commands",
        }
    ),
}


def circles(graph: grimp.ImportGraph) -> set[frozenset[str]]:
    """The strongly connected components of more than one module (or importing itself)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()

    def imported(module: str) -> Iterator[str]:
        return iter(sorted(graph.find_modules_directly_imported_by(module)))

    for root in sorted(graph.modules):
        if root in index:
            continue
        # iterative Tarjan: (module, its imports still to visit)
        work = [(root, imported(root))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, todo = work[-1]
            step = next(todo, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, imported(step)))
                elif step in on_stack:
                    low[module] = min(low[module], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[module])
            if low[module] == index[module]:
                component = set()
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.add(top)
                    if top == module:
                        break
                selfish = graph.direct_import_exists(importer=module, imported=module)
                if len(component) > 1 or selfish:
                    found.add(frozenset(component))
    return found


def test_memhub_has_no_import_circle_but_the_one_named():
    found = circles(grimp.build_graph("memhub", cache_dir=None))
    assert {c for c in found if c not in ALLOWED} == set()
    assert found == ALLOWED  # one that was cut leaves ALLOWED too


def test_a_circle_closed_inside_a_function_is_found(tmp_path, monkeypatch):
    package = tmp_path / "circled"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "low.py").write_text("def use():\n    from circled import high\n    return high\n")
    (package / "high.py").write_text("from circled import low\n")
    (package / "apart.py").write_text("import circled.low\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    found = circles(grimp.build_graph("circled", cache_dir=None))
    assert found == {frozenset({"circled.low", "circled.high"})}
