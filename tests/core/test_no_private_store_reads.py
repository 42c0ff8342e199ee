"""No test reads a private attribute of a store: what a test checks, a user or an operator
can check too, through the store's public methods (``EdgeStore.shard_info``,
``MemHubStore.flush``, the client's records) or, for the stored form itself,
``memhub.testing.stored``.

The check is an AST walk of ``tests/``: an attribute whose name starts with one
underscore, read from a store. A store is what a name is bound to from
``EdgeStore(...)``, ``QdrantServerStore(...)`` or ``MemHubStore(...)`` or from
``<anything>.store``, a name annotated with one of those classes, or any name that
is or ends in ``store``; and ``<anything>.store`` itself.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
STORES = {"EdgeStore", "QdrantServerStore", "MemHubStore"}


def _is_store_class(node: ast.expr | None) -> bool:
    if isinstance(node, ast.Name):
        return node.id in STORES
    if isinstance(node, ast.Attribute):
        return node.attr in STORES
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value in STORES
    if isinstance(node, ast.BinOp):  # EdgeStore | None
        return _is_store_class(node.left) or _is_store_class(node.right)
    if isinstance(node, ast.Subscript):  # Optional[EdgeStore]
        return _is_store_class(node.slice)
    return False


def _makes_store(value: ast.expr) -> bool:
    if isinstance(value, ast.Call):
        return _is_store_class(value.func)
    return isinstance(value, ast.Attribute) and value.attr == "store"


def _store_names(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                pairs: list[tuple[ast.expr, ast.expr]] = [(target, node.value)]
                if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                    pairs = list(zip(target.elts, node.value.elts, strict=False))
                for name, value in pairs:
                    if isinstance(name, ast.Name) and _makes_store(value):
                        names.add(name.id)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if _is_store_class(node.annotation):
                names.add(node.target.id)
        elif isinstance(node, ast.arg) and _is_store_class(node.annotation):
            names.add(node.arg)
        elif (
            isinstance(node, ast.withitem)
            and isinstance(node.optional_vars, ast.Name)
            and _makes_store(node.context_expr)
        ):
            names.add(node.optional_vars.id)
    return names


def private_store_reads(source: str) -> list[tuple[int, str]]:
    """``(line, expression)`` of every private attribute read from a store in ``source``."""
    tree = ast.parse(source)
    names = _store_names(tree)

    def is_store(node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            return node.id in names or node.id.endswith("store")
        return _makes_store(node)

    return [
        (node.lineno, ast.unparse(node))
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr.startswith("_")
        and not node.attr.startswith("__")
        and is_store(node.value)
    ]


def test_the_check_finds_private_reads_of_stores_and_nothing_else():
    source = """
store = EdgeStore(path)
first, release = MemHubStore(client), None
edge = client.engine.store
async def f(opened: EdgeStore | None, item_store, other):
    opened._shards
    item_store._runner.run(x)
    other._private
    client.engine.store._worker.submit(g)
    with QdrantServerStore(":memory:") as server:
        server._client
    await store.shard_info("memories")
    return first._vectors, edge._run, self._loop, store.__class__
"""
    found = sorted(expr for _, expr in private_store_reads(source))
    assert found == [
        "client.engine.store._worker",
        "edge._run",
        "first._vectors",
        "item_store._runner",
        "opened._shards",
        "server._client",
    ]


def test_no_test_reads_a_private_attribute_of_a_store():
    here = Path(__file__).resolve()
    found = [
        f"{path.relative_to(TESTS)}:{line}: {expr}"
        for path in sorted(TESTS.rglob("*.py"))
        if path != here
        for line, expr in private_store_reads(path.read_text(encoding="utf-8"))
    ]
    assert found == []
