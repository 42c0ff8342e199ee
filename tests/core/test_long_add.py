"""A long ``add`` is bounded work that leaves the engine's loop free.

What a 1 MiB add reads is bounded (the extractor reads 32,000 characters of it, a long
turn's vector reads its start) while everything is still stored and keyword-searchable,
and its rules over long text run on a worker thread, not on the loop every other caller
of the engine is served from. Its speed is measured by ``bench/adversarial_bench.py``.
"""

from __future__ import annotations

import threading

import pytest

from memhub.engine.hmg import MAX_CONTENT
from memhub.engine.write import write

FILLER = "We met the team on Monday to plan the release of version two. "


def _message(fact: str, n: int, tail: str = "") -> dict[str, str]:
    return {"role": "user", "content": fact + " " + FILLER * (n // len(FILLER)) + tail}


async def test_a_one_mib_add_is_stored_whole_and_found_by_its_last_word(client):
    body = [_message("I live in Berlin.", 100_000, f"zebra{i} ends it.") for i in range(10)]
    result = await client.add(messages=body, user_id="u")
    assert len(result.raw_ids) == 10
    # read from the start: the fact in the first sentence is learned
    learned = [m.content for m in await client.list(user_id="u")]
    assert "I live in Berlin" in learned, learned
    turns = (await client.search_conversation("zebra7", user_id="u")).turns
    assert turns[0].content == body[7]["content"]


def test_the_extractor_reads_a_long_add_up_to_the_content_limit_at_sentence_ends():
    texts = ["short one.", *(FILLER * 2000 for _ in range(3))]
    read = write._extractor_reads(texts)
    assert read[0] == "short one."
    assert sum(map(len, read)) <= MAX_CONTENT
    assert all(r.endswith("two.") and FILLER.startswith(r[:20]) for r in read[1:])
    # an add within the budget is read whole
    assert write._extractor_reads(["a. b", "c"]) == ["a. b", "c"]


def test_long_raw_turns_share_an_embedding_budget_chat_turns_never_cut():
    chat = "I moved to Berlin last year and I ride my bike to work."
    assert write._embedded([chat] * 40) == [chat] * 40
    one_long = FILLER * 100
    assert write._embedded([one_long, chat]) == [one_long, chat]  # the embedder's own cut
    cut = write._embedded([FILLER * 2000] * 10 + [chat])
    assert cut[-1] == chat
    assert all(FILLER.startswith(c[:40]) and write._tokens(c) <= 128 for c in cut[:-1])
    # however many long turns, together they cost what one long turn costs: one e5 window
    assert sum(map(write._tokens, cut[:-1])) <= 512
    # a chat-sized turn is never cut, even beside long ones
    longer_chat = " ".join([chat] * 4)  # ~100 tokens
    assert write._embedded([FILLER * 2000] * 10 + [longer_chat])[-1] == longer_chat
    cjk = write._embedded(["我住在上海" * 20_000] * 4)
    assert all(write._tokens(c) <= 256 for c in cjk)


@pytest.mark.parametrize("size", [200, 20_000])
async def test_redaction_of_a_long_add_runs_off_the_owner_loop(client, monkeypatch, size):
    threads = []

    def recording(text):
        threads.append(threading.current_thread())
        return real(text)

    real = write.redact
    monkeypatch.setattr(write, "redact", recording)
    await client.add("password=hunter2 " + "x " * (size // 2), user_id="u")
    owner = client.engine.owner._thread
    if size > write.cpu.SMALL:
        assert threads and all(t is not owner for t in threads)
    else:  # a short add: a thread hop would cost more than the rules
        assert threads and all(t is owner for t in threads)
    turns = (await client.search_conversation("password", user_id="u")).turns
    assert turns and "hunter2" not in turns[0].content
