"""The bundled e5 embedder: prefixes, batching, the thread switch and the query cache."""

from __future__ import annotations

import threading

import numpy as np

from memhub.embed import e5 as e5_module


def _cos(a, b) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


async def test_a_short_chinese_query_finds_its_passage(e5):
    query = await e5.embed_query("数据库选型")
    decision, unrelated = await e5.embed_passages(
        ["项目的数据库使用 PostgreSQL 16", "我周末喜欢去公园跑步"]
    )
    assert len(query) == e5.dim == 384
    assert _cos(query, decision) > _cos(query, unrelated)


async def test_one_text_and_a_batch_give_the_same_vector(e5):
    # one text runs on one OpenMP thread, a batch on num_threads: the numbers must not change
    alone = await e5.embed_passages(["The billing service runs on Kubernetes"])
    fresh = e5_module.E5Embedder()  # no cached passages: the batch is really embedded
    batch = await fresh.embed_passages(
        ["something else entirely", "The billing service runs on Kubernetes"]
    )
    assert np.allclose(alone[0], batch[1], atol=1e-6)


async def test_the_thread_count_can_be_switched_per_call(e5):
    await e5.embed_query("warm the model up")
    # the wheel vendors libgomp; without its omp_set_num_threads a short query would be
    # split over every thread again (~1.5x slower on two cores)
    assert e5_module._SET_THREADS is not None


async def test_query_and_passage_prefixes_differ(e5):
    text = "PostgreSQL 16"
    assert not np.allclose(await e5.embed_query(text), (await e5.embed_passages([text]))[0])


async def test_query_vectors_are_cached_and_evicted_oldest_first():
    embedder = e5_module.E5Embedder(cache_size=2)
    first = await embedder.embed_query("one")
    assert await embedder.embed_query("one") is first
    await embedder.embed_query("two")
    await embedder.embed_query("three")
    assert list(embedder._cache) == ["two", "three"]


async def test_a_passage_that_differs_only_in_case_spacing_or_end_punctuation_reuses_its_vector():
    embedder = e5_module.E5Embedder(passage_cache_size=2)
    calls = []
    embed = embedder._passages_sync
    embedder._passages_sync = lambda texts: calls.append(list(texts)) or embed(texts)
    message, other = await embedder.embed_passages(["I live in Berlin.", "I use C++"])
    statement, changed = await embedder.embed_passages(["i live in  Berlin", "I use C#"])
    assert statement is message
    assert calls == [["I live in Berlin.", "I use C++"], ["I use C#"]]
    assert _cos(changed, other) < 0.999
    await embedder.embed_passages(["a", "b"])  # the oldest go beyond two
    assert list(embedder._passages) == ["a", "b"]


async def test_a_batch_keeps_each_text_s_vector_in_order(e5):
    texts = ["I moved to Berlin", "x" * 300, "我喜欢喝咖啡", "", "The deploy runs at 5 pm"]
    fresh = e5_module.E5Embedder(num_threads=2)
    batch = await fresh.embed_passages(texts)
    for text, vector in zip(texts, batch, strict=True):
        alone = await e5_module.E5Embedder(num_threads=1).embed_passages([text])
        assert np.allclose(alone[0], vector, atol=1e-6)


def test_the_runs_of_a_batch_are_embedded_side_by_side(monkeypatch):
    # each run waits for the other at a barrier: embedded one after the other, it times out
    meeting = threading.Barrier(2, timeout=10)
    threads = []

    class Model:
        def passage(self, texts):
            threads.append(threading.current_thread().name)
            meeting.wait()
            return np.array([[float(len(t))] for t in texts])

    monkeypatch.setattr(e5_module, "_MODEL", Model())
    embedder = e5_module.E5Embedder(num_threads=2)
    vectors = embedder._passages_sync(["a" * 40, "b", "c" * 20, "d" * 20])
    assert vectors == [[40.0], [1.0], [20.0], [20.0]]
    assert len(set(threads)) == 2


def test_a_batch_is_cut_into_runs_of_about_the_same_length():
    assert e5_module.split_even(["a" * 30, "b", "c" * 10, "d" * 20], 2) == [
        ["a" * 30, "b"],
        ["c" * 10, "d" * 20],
    ]
    assert e5_module.split_even(["a", "b", "x" * 100], 2) == [["a", "b"], ["x" * 100]]
    assert e5_module.split_even(["only"], 2) == [["only"]]
    assert [len(run) for run in e5_module.split_even(["t" * 40] * 11, 3)] == [4, 4, 3]
