"""The HMG operations with the exact rules of the guide (spec/hmg-guide.zh.md)."""

from __future__ import annotations

import pytest

from memhub import InvalidInputError, InvalidTransitionError, NotFoundError

PG16 = "项目用 PostgreSQL 16 做主数据库，不用 MongoDB"


async def test_memorize_applies_then_dedupes(client):
    first = await client.memorize(PG16)
    again = await client.memorize(PG16)
    assert first.effect == "applied" and len(first.atom_id) == 26
    assert again.effect == "no_op" and again.atom_id == first.atom_id
    assert (await client.stats()).atoms == 1


async def test_near_duplicate_is_no_op_but_a_new_version_number_is_not(client):
    first = await client.memorize("项目用 PostgreSQL 16 做主数据库")
    near = await client.memorize("项目用 PostgreSQL 16 做主数据库。")
    other = await client.memorize("项目用 PostgreSQL 17 做主数据库")
    assert near.effect == "no_op" and near.atom_id == first.atom_id
    assert other.effect == "applied"
    assert near.suggested_correction is None and near.note is None


async def test_hearsay_of_a_stored_fact_is_reported_as_a_correction_candidate(client):
    fact = await client.memorize("API 网关用 Kong")
    hearsay = await client.memorize("听说 API 网关用 Kong")
    assert hearsay.effect == "no_op" and hearsay.atom_id == fact.atom_id
    assert hearsay.epistemic == "actual"  # what is stored is unchanged...
    assert hearsay.suggested_correction == "demote"  # ...but the difference is reported
    assert "possible" in hearsay.note and fact.atom_id in hearsay.note
    english = await client.memorize("The API gateway uses Kong")
    heard = await client.memorize("I heard the API gateway uses Kong")
    assert heard.effect == "no_op" and heard.atom_id == english.atom_id
    assert heard.suggested_correction == "demote"
    guess = await client.memorize("缓存可能用 Redis", epistemic="possible")
    sure = await client.memorize("缓存可能用 Redis", epistemic="actual")
    assert sure.effect == "no_op" and sure.suggested_correction == "confirm_actual"
    assert (await client.history(guess.atom_id)).current.epistemic == "possible"


@pytest.mark.parametrize(
    ("text", "epistemic", "polarity"),
    [
        ("所有 API 必须加认证", "necessary", "positive"),
        ("We must never log tokens", "necessary", "negative"),
        ("考虑用 K8s 部署", "possible", "positive"),
        ("We might move to Rust", "possible", "positive"),
        ("据说 CI 下周迁到 GitHub Actions", "possible", "positive"),
        ("Apparently the staging DB is shared", "possible", "positive"),
        ("We heard that the vendor drops SOAP", "possible", "positive"),
        ("I heard back from the vendor: SOAP stays", "actual", "positive"),
        (PG16, "actual", "positive"),
        ("不用 MongoDB 做缓存", "actual", "negative"),
    ],
)
async def test_epistemic_and_polarity_are_inferred(client, text, epistemic, polarity):
    result = await client.memorize(text)
    assert (result.epistemic, result.polarity) == (epistemic, polarity)


async def test_recall_returns_scored_atoms_best_first(client):
    pg = await client.memorize(PG16)
    await client.memorize("前端用 React 18")
    await client.memorize("I like coffee")
    atoms = (await client.recall("PostgreSQL 数据库")).atoms
    assert atoms[0].atom_id == pg.atom_id
    assert all(0 <= a.score <= 1 for a in atoms)
    assert [a.score for a in atoms] == sorted((a.score for a in atoms), reverse=True)
    assert atoms[0].created_at.endswith("Z") and atoms[0].source == "agent"


async def test_replace_supersedes_and_recall_returns_only_the_new_version(client):
    old = await client.memorize(PG16)
    result = await client.correct(
        old.atom_id,
        "replace",
        "已升级到 PostgreSQL 17",
        new_content="项目用 PostgreSQL 17 做主数据库",
    )
    contents = [a.content for a in (await client.recall("PostgreSQL")).atoms]
    assert contents == ["项目用 PostgreSQL 17 做主数据库"]
    history = await client.history(result.new_atom_id)
    assert history.relations.supersedes == [old.atom_id]
    assert history.relations.chain == [old.atom_id, result.new_atom_id]
    assert history.status_history[-1].reason == "已升级到 PostgreSQL 17"
    old_history = await client.history(old.atom_id)
    assert old_history.current.status == "superseded"
    assert old_history.relations.superseded_by == [result.new_atom_id]


async def test_replacing_a_superseded_version_is_refused(client):
    old = await client.memorize(PG16)
    await client.correct(
        old.atom_id, "replace", "upgrade", new_content="项目用 PostgreSQL 17 做主数据库"
    )
    with pytest.raises(InvalidTransitionError, match="latest version"):
        await client.correct(old.atom_id, "replace", "again", new_content="项目用 PostgreSQL 18")


async def test_the_refusal_names_the_chains_current_version_not_the_next_one(client):
    v1 = await client.memorize(PG16)
    v2 = await client.correct(v1.atom_id, "replace", "upgrade", new_content="项目用 PostgreSQL 17")
    v3 = await client.correct(
        v2.new_atom_id, "replace", "again", new_content="项目用 PostgreSQL 18"
    )
    with pytest.raises(InvalidTransitionError, match=f"latest version {v3.new_atom_id}"):
        await client.correct(v1.atom_id, "negate", "wrong")


async def test_negate_hides_from_recall_and_keeps_content(client):
    mongo = await client.memorize("用 MongoDB 做会话缓存")
    await client.correct(mongo.atom_id, "negate", "MongoDB 缓存方案已废弃，改用 Redis")
    assert (await client.recall("MongoDB 缓存")).atoms == []
    history = await client.history(mongo.atom_id)
    assert (
        history.current.content == "用 MongoDB 做会话缓存" and history.current.status == "negated"
    )


async def test_replace_recovers_a_wrong_negate(client):
    mongo = await client.memorize("用 MongoDB 做会话缓存")
    await client.correct(mongo.atom_id, "negate", "以为废弃了")
    fixed = await client.correct(
        mongo.atom_id,
        "replace",
        "negate 有误，MongoDB 缓存仍在使用",
        new_content="用 MongoDB 做会话缓存，仍在使用",
    )
    assert [a.atom_id for a in (await client.recall("MongoDB 缓存")).atoms] == [fixed.new_atom_id]


async def test_replace_recovers_a_wrong_replace(client):
    pg = await client.memorize("项目用 PostgreSQL 16 做主数据库")
    wrong = await client.correct(
        pg.atom_id, "replace", "upgrade", new_content="项目用 PostgreSQL 17 做主数据库"
    )
    back = await client.correct(
        wrong.new_atom_id,
        "replace",
        "升级取消，回退到 16",
        new_content="项目用 PostgreSQL 16 做主数据库",
    )
    assert [a.atom_id for a in (await client.recall("PostgreSQL")).atoms] == [back.new_atom_id]
    assert (await client.history(back.new_atom_id)).relations.chain == [
        pg.atom_id,
        wrong.new_atom_id,
        back.new_atom_id,
    ]


# The epistemic table of the guide: (start, action) -> result, or None for refused.
EPISTEMIC = [
    ("possible", "confirm_actual", "actual"),
    ("possible", "confirm_necessary", None),
    ("possible", "demote", "possible"),
    ("actual", "confirm_actual", "actual"),
    ("actual", "confirm_necessary", "necessary"),
    ("actual", "demote", "possible"),
    ("necessary", "confirm_actual", None),
    ("necessary", "confirm_necessary", "necessary"),
    ("necessary", "demote", "possible"),  # straight to possible, not one step down
]


@pytest.mark.parametrize(("start", "action", "expected"), EPISTEMIC)
async def test_epistemic_transitions(client, start, action, expected):
    atom = await client.memorize("API 网关用 Kong", epistemic=start)
    if expected is None:
        with pytest.raises(InvalidTransitionError):
            await client.correct(atom.atom_id, action, "check")
        assert (await client.history(atom.atom_id)).current.epistemic == start
        return
    result = await client.correct(atom.atom_id, action, "check")
    assert result.epistemic == expected
    assert result.effect == ("no_op" if expected == start else "applied")
    history = await client.history(atom.atom_id)
    assert history.current.epistemic == expected
    if expected != start:
        assert [(s.from_, s.to, s.reason) for s in history.epistemic_history] == [
            (start, expected, "check")
        ]


async def test_necessary_to_actual_takes_demote_then_confirm(client):
    atom = await client.memorize("所有 API 必须加认证")
    await client.correct(atom.atom_id, "demote", "not a hard rule yet")
    result = await client.correct(atom.atom_id, "confirm_actual", "team convention")
    assert result.epistemic == "actual"


@pytest.mark.parametrize("action", ["negate", "confirm_actual", "confirm_necessary", "demote"])
async def test_correct_on_a_negated_atom_is_refused_except_replace(client, action):
    atom = await client.memorize("用 MongoDB 做会话缓存")
    await client.correct(atom.atom_id, "negate", "gone")
    with pytest.raises(InvalidTransitionError, match="replace"):
        await client.correct(atom.atom_id, action, "again")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"action": "replace", "reason": "x"}, "new_content"),
        ({"action": "negate", "reason": ""}, "reason"),
        ({"action": "negate", "reason": "x", "new_content": "y"}, "only for replace"),
        ({"action": "explode", "reason": "x"}, "unknown"),
    ],
)
async def test_bad_correct_input_changes_nothing(client, kwargs, message):
    atom = await client.memorize(PG16)
    before = await client.stats()
    with pytest.raises(InvalidInputError, match=message):
        await client.correct(atom.atom_id, **kwargs)
    after = await client.stats()
    assert (after.atoms, after.snapshot_version) == (before.atoms, before.snapshot_version)


async def test_unknown_id_is_not_found(client):
    with pytest.raises(NotFoundError):
        await client.correct("01HKX2ABCDEF0123456789ABCD", "negate", "x")
    with pytest.raises(InvalidInputError):
        await client.history("not-an-id")


async def test_quarantine_hides_and_release_restores(client):
    atom = await client.memorize("用 Kafka 做消息队列")
    await client.govern(atom.atom_id, "quarantine", "待人工确认")
    assert (await client.recall("Kafka 消息队列")).atoms == []
    await client.govern(atom.atom_id, "release", "确认无误")
    assert [a.atom_id for a in (await client.recall("Kafka 消息队列")).atoms] == [atom.atom_id]
    steps = (await client.history(atom.atom_id)).exposure_history
    assert [(s.from_, s.to) for s in steps] == [
        ("visible", "quarantined"),
        ("quarantined", "visible"),
    ]


async def test_seal_removes_content_and_vectors(client):
    atom = await client.memorize("数据库密码是 hunter2hunter2，别外传")
    before = await client.stats()
    await client.govern(atom.atom_id, "seal", "明文密码")
    history = await client.history(atom.atom_id)
    assert history.current.content == "[governed payload hidden: sealed]"
    assert history.exposure_history[0].reason == "明文密码"
    after = await client.stats()
    assert after.indexes["semantic"] == before.indexes["semantic"] - 1
    assert (await client.recall("数据库密码")).atoms == []
    with pytest.raises(InvalidTransitionError):
        await client.correct(atom.atom_id, "replace", "x", new_content="y")


async def test_tombstone_keeps_only_id_and_times(client):
    atom = await client.memorize("删除我 completely")
    await client.govern(atom.atom_id, "tombstone", "用户要求删除")
    current = (await client.history(atom.atom_id)).current
    assert current.content == "[governed payload hidden: tombstoned]"
    assert current.exposure_state == "tombstoned"
    with pytest.raises(InvalidTransitionError):
        await client.govern(atom.atom_id, "quarantine", "again")


async def test_derive_lesson_seals_and_links_both_ways(client):
    secret = await client.memorize("数据库密码是 pg_admin_123")
    result = await client.govern(
        secret.atom_id,
        "derive_lesson",
        "内容含明文数据库密码，必须清除",
        lesson_content="不要在记忆中存储数据库密码和连接串，使用环境变量",
    )
    lesson = await client.history(result.lesson_atom_id)
    source = await client.history(secret.atom_id)
    assert lesson.relations.related_lessons == [secret.atom_id]
    assert source.relations.related_lessons == [result.lesson_atom_id]
    assert source.current.content == "[governed payload hidden: sealed]"
    assert lesson.exposure_history == []
    assert [a.atom_id for a in (await client.recall("数据库密码 存储")).atoms] == [
        result.lesson_atom_id
    ]


@pytest.mark.parametrize(
    ("first", "second", "allowed"),
    [
        ("quarantine", "seal", True),
        ("seal", "quarantine", False),
        ("seal", "release", False),
        ("seal", "derive_lesson", False),
        ("seal", "tombstone", True),
        ("tombstone", "seal", False),
        ("quarantine", "release", True),
    ],
)
async def test_govern_transition_table(client, first, second, allowed):
    atom = await client.memorize("some fact to govern 42")
    lesson = {"lesson_content": "a lesson"} if first == "derive_lesson" else {}
    await client.govern(atom.atom_id, first, "first", **lesson)
    lesson = {"lesson_content": "a lesson"} if second == "derive_lesson" else {}
    if allowed:
        assert (await client.govern(atom.atom_id, second, "second", **lesson)).effect == "applied"
    else:
        with pytest.raises(InvalidTransitionError):
            await client.govern(atom.atom_id, second, "second", **lesson)


async def test_handoff_comes_first_in_session_context_with_constraints(client):
    await client.memorize("所有 API 必须加认证")
    await client.memorize("前端用 React 18")
    await client.handoff("first session summary")
    latest = await client.handoff("修复了 login.py 的空指针问题；下一步补集成测试")
    ctx = await client.session_context()
    assert ctx.handoff.atom_id == latest.atom_id
    assert [h.content for h in ctx.earlier_handoffs] == ["first session summary"]
    assert [c.content for c in ctx.constraints] == ["所有 API 必须加认证"]
    assert all(a.layer != "handoff" for a in (await client.recall("login.py 空指针")).atoms)


async def test_stats_counts_atoms_edges_indexes_and_snapshot(client):
    a = await client.memorize(PG16)
    s1 = await client.stats()
    await client.correct(
        a.atom_id, "replace", "upgrade", new_content="项目用 PostgreSQL 17 做主数据库"
    )
    s2 = await client.stats()
    assert (s1.atoms, s2.atoms) == (1, 2)
    assert s2.edges == s1.edges + 1
    assert set(s2.indexes) == {"semantic", "keyword", "temporal", "categorical"}
    assert s2.snapshot_version > s1.snapshot_version


async def test_secrets_are_redacted_before_storage(client):
    result = await client.memorize(
        "连接串 postgres://admin:s3cretpw@db:5432/app 和 password=hunter22"
    )
    content = (await client.history(result.atom_id)).current.content
    assert "s3cretpw" not in content and "hunter22" not in content
    assert set(result.redacted) == {"connection_string", "password"}


@pytest.mark.parametrize("action", ["seal", "tombstone"])
async def test_governing_erases_the_reasons_that_quoted_the_memory(client, action):
    old = await client.memorize("staging 的保险柜暗号记在 wiki 上")
    fixed = await client.correct(
        old.atom_id,
        "replace",
        "暗号改成 kiwi7741 了",
        new_content="staging 的保险柜暗号是 kiwi7741",
    )
    await client.correct(fixed.new_atom_id, "demote", "not sure kiwi7741 still opens it")
    await client.govern(fixed.new_atom_id, "quarantine", "kiwi7741 may still be live")

    await client.govern(fixed.new_atom_id, action, "leaked kiwi7741 in plain text")

    trails = [await client.history(fixed.new_atom_id), await client.history(old.atom_id)]
    assert all("kiwi7741" not in t.model_dump_json() for t in trails)
    steps = trails[0].status_history + trails[0].epistemic_history + trails[0].exposure_history
    erased = f"[reason erased: {'sealed' if action == 'seal' else 'tombstoned'}]"
    # the governing step says why, without the words it shares with the memory
    assert [s.reason for s in steps] == [erased] * 3 + ["leaked […] in plain text"]
    # the replace step on the older version named the sealed one: erased too
    assert trails[1].status_history[-1].reason.startswith("[reason erased")
