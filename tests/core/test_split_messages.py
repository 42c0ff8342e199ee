"""``split_messages``: how a conversation longer than one request is cut into several adds."""

from __future__ import annotations

from memhub.messages import is_turn, split_messages, too_many_messages


def _said(roles: str) -> list[dict]:
    """``"uat"``: a user turn, an assistant turn, a tool result (``s``: system, ``c``: a tool call
    without text)."""
    kinds = {"u": "user", "a": "assistant", "t": "tool", "s": "system", "c": "assistant"}
    return [
        {"role": kinds[r], "content": "" if r == "c" else f"{r}{i}"} for i, r in enumerate(roles)
    ]


def _roles(parts: list[list[dict]]) -> list[str]:
    code = {"user": "u", "assistant": "a", "tool": "t", "system": "s"}
    return ["".join("c" if not m["content"] else code[m["role"]] for m in p) for p in parts]


def test_each_part_has_at_most_the_limit_of_turns_and_nothing_is_lost_or_reordered():
    said = _said("suauauauauauauauaua")
    parts = split_messages(said, 4)
    assert [m for part in parts for m in part] == said
    assert all(1 <= sum(map(is_turn, part)) <= 4 for part in parts)


def test_a_part_ends_before_a_user_turn_so_an_answer_stays_with_its_question():
    assert _roles(split_messages(_said("uaauaauaa"), 4)) == ["uaa", "uaa", "uaa"]
    assert _roles(split_messages(_said("uctauctauct"), 2)) == ["ucta", "ucta", "uct"]


def test_system_and_tool_messages_neither_count_nor_make_a_part_of_their_own():
    assert _roles(split_messages(_said("suctctctctcta"), 2)) == ["suctctctctcta"]
    assert too_many_messages(_said("suctctctctcta"), 2) is None
    assert "has 3 user and assistant messages; the limit is 2" in (
        too_many_messages(_said("suauc"), 2) or ""
    )


def test_without_a_user_turn_to_cut_before_a_part_ends_at_the_limit():
    assert _roles(split_messages(_said("aaaaa"), 2)) == ["aa", "aa", "a"]
