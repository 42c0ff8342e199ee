"""``Settings``: one pydantic model; precedence constructor > ``MEMHUB_*`` env > YAML > defaults.

The YAML lives at ``~/.memhub/config.yaml`` (``MEMHUB_CONFIG`` overrides the path)
and is created on first start with every key commented out. Nothing here runs at
import time.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, Field, PrivateAttr, SecretStr, ValidationError

from memhub.errors import InvalidInputError

_SECRET_KEYS = ("llm_api_key", "jev_api_key", "embed_api_key", "qdrant_api_key")


class Settings(BaseModel):
    """Every setting memhub reads. Keys left ``None`` fall back to the next source."""

    _sources: dict[str, str] | None = PrivateAttr(default=None)
    """Where each key came from, when ``load`` resolved them (see ``sources``)."""

    mode: Literal["system1", "dual"] = Field(
        "system1", description="system1 writes L0-L2; dual also digests L3"
    )
    storage_dir: str = Field("./.memhub_data", description="embedded store folder (Qdrant Edge)")
    default_app_id: str = Field("default", description="app_id used when a call gives none")
    tenant: str = Field(
        "local", description="tenant of this client (the REST service sets it per API key)"
    )

    llm_api_key: SecretStr | None = Field(
        None, description="OpenAI-compatible key for extraction and digest"
    )
    llm_base_url: str | None = Field(None, description="e.g. https://api.deepseek.com/v1")
    llm_model: str = Field("gpt-4o-mini", description="chat model for extraction and digest")
    jev_api_key: SecretStr | None = Field(
        None, description="key for the write judge (defaults to llm_*)"
    )
    jev_base_url: str | None = Field(
        None, description="the write judge's endpoint (unset: llm_base_url)"
    )
    jev_model: str | None = Field(None, description="the write judge's model (unset: llm_model)")
    embed_api_key: SecretStr | None = Field(
        None, description="set to embed with a hosted model instead of e5"
    )
    embed_base_url: str | None = Field(None, description="the hosted embedder's endpoint")
    embed_model: str = Field("text-embedding-3-small", description="the hosted embedding model")
    embed_dimensions: int = Field(1536, description="the hosted model's vector size")
    embed_chars_per_token: float = Field(
        1.2, gt=0, description="ASCII characters per token (hosted embedder)"
    )
    embed_max_tokens: int = Field(
        8192, gt=0, description="longest text embedded, in tokens (e5 reads at most 512)"
    )

    reconcile_relation_threshold: float = Field(
        0.6, ge=0, le=1, description="how related a stored memory must be for the judge to see it"
    )
    procedure_source_max_chars: int = Field(
        24000, gt=0, description="most characters of a conversation the LLM extractor reads"
    )
    jev_max_question_chars: int = Field(
        16000, gt=0, description="most characters of one question to the LLM write judge"
    )
    procedure_enabled: bool = Field(True, description="extract procedures from coding sessions")
    derived_context_limit: int = Field(
        0, ge=0, description="L3 patterns search returns when a call does not say (dual mode)"
    )
    # 12 chat turns of ~120 tokens each (English and Chinese), with the facts extracted from
    # them, took 1.6-1.9 s (2.0 s of CPU) at load ~3.4 on 2 cores; 20 took 2.3-3.5 s
    # (bench/adversarial_bench.py). A server door must stay under 3 s per request.
    max_messages_per_add: int = Field(
        12,
        ge=1,
        description="most user and assistant messages in one add through the REST service, the "
        "hub and MCP (RemoteClient splits a longer list; MemoryClient in process is not bound)",
    )

    # Per-tenant limits of the REST service (memhub_server.limits); an API key may set its own.
    rate_limit: str | None = Field(
        None,
        description="REST service: requests per tenant, e.g. '20/second' or "
        "'20/second;600/minute'; over it 429 with Retry-After (unset: no limit)",
    )
    max_concurrent_writes: int = Field(
        0, ge=0, description="REST service: writes of one tenant in progress at once (0: no limit)"
    )
    memory_quota: int = Field(
        0, ge=0, description="REST service: stored memories per tenant (0: no quota)"
    )
    rate_limit_storage: str = Field(
        "memory://",
        description="where the rate windows live: memory:// (per process) or a shared "
        "storage such as redis://host:6379 for several workers",
    )

    qdrant_url: str | None = Field(
        None, description="Qdrant server/cluster URL; unset = embedded Qdrant Edge"
    )
    qdrant_api_key: SecretStr | None = Field(None, description="the Qdrant server's API key")
    collection_prefix: str = Field("memhub", description="collection names begin with it")

    @classmethod
    def load(
        cls,
        config_path: str | Path | None = None,
        env: dict[str, str] | None = None,
        **overrides: Any,
    ) -> Settings:
        """Resolve every key through constructor > environment > YAML > defaults."""
        env = dict(os.environ if env is None else env)
        path = Path(
            config_path or env.get("MEMHUB_CONFIG") or Path.home() / ".memhub" / "config.yaml"
        )
        values: dict[str, Any] = {}
        values.update(_read_yaml(path))
        values.update(
            {
                k: env[f"MEMHUB_{k.upper()}"]
                for k in cls.model_fields
                if f"MEMHUB_{k.upper()}" in env
            }
        )
        values.update({k: v for k, v in overrides.items() if v is not None})
        try:
            settings = cls(**values)
        except ValidationError as err:
            raise InvalidInputError(f"invalid memhub settings: {err}") from err
        settings._sources = _sources(path, env, overrides)
        return settings

    def sources(self) -> dict[str, str]:
        """Where each key came from: ``constructor``, ``env``, ``yaml`` or ``default``."""
        if self._sources is not None:
            return self._sources
        return {k: "constructor" for k in self.model_fields_set}

    def masked(self) -> dict[str, Any]:
        """The effective settings with keys masked, for ``memhub config``."""
        shown = self.model_dump()
        for key in _SECRET_KEYS:
            value = getattr(self, key)
            shown[key] = None if value is None else "****" + value.get_secret_value()[-4:]
        return shown

    def secret(self, key: str) -> str | None:
        value = getattr(self, key)
        return value.get_secret_value() if value is not None else None


def _sources(path: Path, env: dict[str, str], overrides: dict[str, Any]) -> dict[str, str]:
    from_yaml = _read_yaml(path)
    out = {}
    for key in Settings.model_fields:
        if overrides.get(key) is not None:
            out[key] = "constructor"
        elif f"MEMHUB_{key.upper()}" in env:
            out[key] = "env"
        elif key in from_yaml:
            out[key] = f"yaml ({path})"
        else:
            out[key] = "default"
    return out


def _read_yaml(path: Path) -> dict[str, Any]:
    if not path.exists():
        _write_template(path)
        return {}
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as err:
        raise InvalidInputError(f"{path} is not valid YAML: {err}") from err
    if not isinstance(data, dict):
        raise InvalidInputError(f"{path} must be a mapping of settings")
    unknown = set(data) - set(Settings.model_fields)
    if unknown:
        raise InvalidInputError(f"{path}: unknown settings {sorted(unknown)}")
    return data


def _write_template(path: Path) -> None:
    """First start: a YAML with every key, commented, so users see what exists."""
    lines = [
        "# memhub settings. Uncomment a key to set it; MEMHUB_<KEY> env vars win over this file.",
        "",
    ]
    for key, field in Settings.model_fields.items():
        if field.description:
            lines.append(f"# {field.description}")
        default = field.default
        shown = (
            "" if default is None else yaml.safe_dump(default).strip().removesuffix("...").strip()
        )
        lines.append(f"# {key}: {shown}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines) + "\n")
        path.chmod(0o600)
    except OSError:
        pass  # a read-only home must not stop memhub from running with defaults
