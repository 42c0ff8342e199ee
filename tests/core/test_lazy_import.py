"""``import memhub`` is light: the clients, and with them numpy, Qdrant and the embedders,
load when first used."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("numpy", "qdrant_edge", "qdrant_client", "memhub.client", "memhub.embed", "pydantic")


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys\nprint('\\n'.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return set(out.split())


def test_import_memhub_loads_no_heavy_module():
    loaded = _modules_after("import memhub")
    heavy = {m for m in loaded for h in HEAVY if m == h or m.startswith(h + ".")}
    assert not heavy, f"import memhub loaded {sorted(heavy)}"


def test_the_clients_load_on_first_use():
    loaded = _modules_after(
        "import memhub\n"
        "assert memhub.MemoryClient.__module__ == 'memhub.client'\n"
        "assert memhub.SyncMemoryClient.__module__ == 'memhub.sync'\n"
        "assert memhub.Settings.__module__ == 'memhub.config'\n"
        "from memhub import *  # every name of __all__ resolves"
    )
    assert "memhub.client" in loaded


def test_an_unknown_name_is_an_attribute_error():
    import memhub

    with pytest.raises(AttributeError, match="no attribute 'Client'"):
        memhub.Client  # noqa: B018
    assert {"MemoryClient", "SyncMemoryClient", "Settings"} <= set(dir(memhub))
