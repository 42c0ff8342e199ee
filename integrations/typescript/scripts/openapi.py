"""Print the REST service's OpenAPI document (JSON) without starting a server.

The TypeScript client's types are generated from it (``scripts/generate.mjs``).
Run with the workspace's Python: ``.venv/bin/python integrations/typescript/scripts/openapi.py``.
"""

from __future__ import annotations

import json
import sys
import tempfile

from memhub import Settings
from memhub_server.app import create_app


def main() -> None:
    # create_app opens nothing until the server starts; the folder only fills Settings
    with tempfile.TemporaryDirectory() as folder:
        document = create_app(Settings(storage_dir=folder)).openapi()
    json.dump(document, sys.stdout, ensure_ascii=False, indent=2, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
