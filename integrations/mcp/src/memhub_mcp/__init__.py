"""memhub-mcp: memhub's memory as MCP tools, a prompt and a resource.

Run ``memhub-mcp`` (stdio) or ``memhub-mcp --transport streamable-http`` (``/mcp`` on
127.0.0.1:8765), or build the server yourself with :func:`build_server`.
"""

from memhub_mcp.server import CONTEXT_PROMPT, CONTEXT_URI, build_server
from memhub_mcp.tools import TOOL_NAMES

__version__ = "0.1.0"

__all__ = ["CONTEXT_PROMPT", "CONTEXT_URI", "TOOL_NAMES", "build_server"]
