"""The CLI's progress: a bar with count, rate and ETA on a terminal; nothing elsewhere or when
quiet.
"""

from __future__ import annotations

import io

from memhub.progress import Progress, TqdmProgress, bar


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_count_rate_and_eta():
    stream = Terminal()
    progress = bar(stream=stream)
    assert isinstance(progress, TqdmProgress)
    progress.start("import", 1000)
    progress.advance(250)
    progress.note("re-embedding every memory")
    progress.close()
    shown = stream.getvalue()
    assert (
        "import" in shown and "250/1000" in shown and "mem/s" in shown and "<" in shown
    )  # ETA: elapsed<left
    assert "memhub: re-embedding every memory" in shown


def test_not_a_terminal_shows_notes_only_and_quiet_shows_nothing():
    stream = io.StringIO()
    progress = bar(stream=stream)
    progress.start("import", 10)
    progress.advance(10)
    progress.note("hello")
    assert stream.getvalue() == "memhub: hello\n"
    quiet = io.StringIO()
    progress = bar(quiet=True, stream=quiet)
    progress.start("import", 10)
    progress.note("hello")
    assert quiet.getvalue() == ""


async def test_purge_reports_every_record_it_rewrites(client):
    for text in ("项目用 PostgreSQL 16", "部署需要审批", "周五发布"):
        await client.memorize(text)
    counted = []

    class Count(Progress):
        def start(self, label: str, total: int | None = None) -> None:
            counted.append((label, total))

        def advance(self, n: int = 1) -> None:
            counted.append(n)

    await client.purge(progress=Count())
    (label, total), *steps = counted
    assert label == "purge" and total == sum(steps) and total >= 7  # 3 memories, 3 events, meta
