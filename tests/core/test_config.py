"""Settings precedence: constructor > MEMHUB_* env > YAML > defaults; the YAML template on first
start.
"""

from __future__ import annotations

import pytest
import yaml

from memhub import InvalidInputError, MemoryClient, Settings
from memhub.testing import HashEmbedder


def test_first_start_writes_a_commented_template_with_every_key(tmp_path):
    path = tmp_path / "home" / "config.yaml"
    settings = Settings.load(config_path=path, env={})
    text = path.read_text()
    assert yaml.safe_load(text) is None  # everything commented out
    for key in Settings.model_fields:
        assert f"# {key}:" in text
    assert settings.mode == "system1" and settings.reconcile_relation_threshold == 0.6
    assert (path.stat().st_mode & 0o777) == 0o600


def test_precedence(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("mode: dual\ndefault_app_id: from-yaml\nprocedure_source_max_chars: 1000\n")
    env = {"MEMHUB_DEFAULT_APP_ID": "from-env", "MEMHUB_PROCEDURE_SOURCE_MAX_CHARS": "2000"}
    s = Settings.load(config_path=path, env=env, procedure_source_max_chars=3000)
    assert (s.mode, s.default_app_id, s.procedure_source_max_chars) == ("dual", "from-env", 3000)
    assert s.sources()["mode"].startswith("yaml")
    assert s.sources()["default_app_id"] == "env"
    assert s.sources()["procedure_source_max_chars"] == "constructor"
    assert s.sources()["derived_context_limit"] == "default"


@pytest.mark.parametrize(
    ("yaml_text", "env"),
    [
        ("mode: triple\n", {}),
        ("no_such_key: 1\n", {}),
        ("- a list\n", {}),
        ("", {"MEMHUB_RECONCILE_RELATION_THRESHOLD": "2"}),
    ],
)
def test_bad_settings_are_a_clear_error(tmp_path, yaml_text, env):
    path = tmp_path / "config.yaml"
    path.write_text(yaml_text)
    with pytest.raises(InvalidInputError):
        Settings.load(config_path=path, env=env)


def test_keys_are_masked(tmp_path):
    s = Settings.load(
        config_path=tmp_path / "c.yaml", env={"MEMHUB_LLM_API_KEY": "sk-abcdefghijklmnop1234"}
    )
    assert s.masked()["llm_api_key"] == "****1234"
    assert "abcdefgh" not in repr(s)


async def test_client_reads_mode_from_env(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMHUB_MODE", "dual")
    async with MemoryClient(
        storage_dir=tmp_path / "s", embed=HashEmbedder(), cwd=tmp_path
    ) as client:
        assert client.settings.mode == "dual"
    async with MemoryClient(
        mode="system1", storage_dir=tmp_path / "s", embed=HashEmbedder(), cwd=tmp_path
    ) as client:
        assert client.settings.mode == "system1"
