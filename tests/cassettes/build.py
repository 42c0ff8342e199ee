"""Build the provider cassettes offline: real requests, scripted replies.

    .venv/bin/python tests/cassettes/build.py

Each scenario runs memhub's real code (``OpenAICompatibleLLM`` and the extractor,
judge or write path around it) against a scripted transport instead of the network;
what memhub sent becomes the cassette's request (so tests match on the prompts) and
the scripted reply its response. Run it again after a prompt changes, and review the
diff of the cassettes: it shows exactly how the prompts changed.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx
import openai
import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "core"))  # the test module's shared inputs

from test_llm_provider import JUDGE_ITEMS, MESSAGES  # noqa: E402

from memhub import MemoryClient  # noqa: E402
from memhub.providers.llm import OpenAICompatibleLLM  # noqa: E402
from memhub.providers.llm_roles import LLMExtractor, LLMJudge  # noqa: E402
from memhub.testing import HashEmbedder  # noqa: E402

URL = "https://api.openai.com/v1/chat/completions"
HEADER = (
    "# Built by tests/cassettes/build.py from scripted replies (no key, no network): the requests\n"
    "# are what memhub sends, and the tests match on them. Rebuild after a prompt changes.\n"
)
Reply = tuple[int, dict | str]


def completion(content: dict | str) -> Reply:
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    return 200, {
        "id": "chatcmpl-replay",
        "object": "chat.completion",
        "created": 1764460800,
        "model": "gpt-4o-mini",
        "choices": [
            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}
        ],
        "usage": {"prompt_tokens": 120, "completion_tokens": 40, "total_tokens": 160},
    }


def failure(status: int, message: str, kind: str, code: str | None = None) -> Reply:
    return status, {"error": {"message": message, "type": kind, **({"code": code} if code else {})}}


EXTRACTED = {
    "candidates": [
        {"text": "用户住在上海", "layer": "profile", "proactive": False, "source_ids": ["m1"]},
        {
            "text": "用户下个月要搬去北京工作",
            "layer": "fact",
            "proactive": True,
            "source_ids": ["m3"],
        },
    ]
}
# cites an id that was never sent: memhub must not store it as evidence
EXTRACTED_BAD_ID = {
    "candidates": [
        {"text": "用户住在上海", "layer": "profile", "proactive": False, "source_ids": ["m1"]},
    ]
}
JUDGED = {
    "verdicts": [
        {
            "index": 0,
            "action": "OVERRIDE",
            "targets": ["TARGET"],
            "update_type": "value_change",
            "reason": "city changed",
        }
    ]
}
SERVER_ERROR = failure(500, "The server had an error", "server_error")


def llm(transport: httpx.AsyncBaseTransport) -> OpenAICompatibleLLM:
    model = OpenAICompatibleLLM("gpt-4o-mini", api_key="sk-test-replay", backoff=0.01)
    model._client = openai.AsyncOpenAI(
        api_key="sk-test-replay", max_retries=0, http_client=httpx.AsyncClient(transport=transport)
    )
    return model


async def extract(model: OpenAICompatibleLLM) -> None:
    await LLMExtractor(model).extract(MESSAGES)


async def judge(model: OpenAICompatibleLLM) -> None:
    await LLMJudge(model).judge(JUDGE_ITEMS)


async def raw(model: OpenAICompatibleLLM) -> None:
    await model.complete_json("s", "u")


async def add(model: OpenAICompatibleLLM) -> None:
    with tempfile.TemporaryDirectory() as folder:
        client = MemoryClient(
            storage_dir=Path(folder) / "s", embed=HashEmbedder(), llm=model, cwd=folder
        )
        async with client:
            await client.add(messages=[{"role": "user", "content": "我住在上海"}], user_id="alice")


SCENARIOS: dict[str, tuple[Callable[[OpenAICompatibleLLM], Awaitable[None]], list[Reply]]] = {
    "llm_extract.yaml": (extract, [completion(EXTRACTED)]),
    "llm_judge.yaml": (judge, [completion(JUDGED)]),
    "llm_retry_then_ok.yaml": (
        extract,
        [
            failure(429, "Rate limit reached", "rate_limit_error", "rate_limit_exceeded"),
            failure(503, "The server had an error", "server_error"),
            completion(EXTRACTED),
        ],
    ),
    "llm_always_500.yaml": (raw, [SERVER_ERROR] * 4),
    "llm_unauthorized.yaml": (
        raw,
        [failure(401, "Incorrect API key provided", "invalid_request_error", "invalid_api_key")],
    ),
    "llm_not_json.yaml": (raw, [completion("sorry, I cannot")]),
    "llm_add.yaml": (add, [completion(EXTRACTED_BAD_ID)]),
}


async def build(name: str, run, replies: list[Reply]) -> None:
    interactions = []
    pending = list(replies)

    def answer(request: httpx.Request) -> httpx.Response:
        status, body = pending.pop(0)
        interactions.append(
            {
                "request": {
                    "method": request.method,
                    "uri": str(request.url),
                    "body": request.content.decode(),
                    "headers": {"content-type": ["application/json"]},
                },
                "response": {
                    "status": {"code": status, "message": httpx.codes.get_reason_phrase(status)},
                    "headers": {"content-type": ["application/json"]},
                    "body": {"string": json.dumps(body, ensure_ascii=False)},
                },
            }
        )
        return httpx.Response(status, json=body)

    try:
        await run(llm(httpx.MockTransport(answer)))
    except Exception as err:  # noqa: BLE001 - the failure scenarios end in an error by design
        print(f"{name}: ended with {type(err).__name__}")
    if pending:
        raise SystemExit(f"{name}: {len(pending)} scripted replies were never asked for")
    text = yaml.safe_dump(
        {"version": 1, "interactions": interactions}, allow_unicode=True, width=100
    )
    (HERE / name).write_text(HEADER + text)
    print(f"{name}: {len(interactions)} interactions")


def main() -> None:
    for name, (run, replies) in SCENARIOS.items():
        asyncio.run(build(name, run, replies))


if __name__ == "__main__":
    main()
