import dataclasses
import time

import pytest

from memhub.redact import Redaction, redact, redact_many

# Fake credentials are assembled at runtime so secret scanners do not flag this file.
OPENAI = "sk-" + "proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
OPENAI_LEGACY = "sk-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv"
ANTHROPIC = "sk-" + "ant-" + "api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe-AbCd"
GITHUB = "ghp" + "_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
GITHUB_PAT = "github" + "_pat_" + "11ABCDEFG0aBcDeFgHiJkL_mNoPqRsTuVwXyZ0123456789"
SLACK_BOT = "xox" + "b-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
SLACK_USER = "xox" + "p-9876543210-9876543210987-ZyXwVuTsRqPoNmLkJiHgFeDc"
GOOGLE = "AI" + "za" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"
STRIPE_SECRET = "sk_" + "live_" + "4eC39HqLyjWDarjtT1zdp7dc"
STRIPE_RESTRICTED = "rk_" + "live_" + "51H8aBcDeFgHiJkLmNoPqRsT"
AWS_KEY_ID = "AK" + "IAIOSFODNN7EXAMPLE"
AWS_STS_KEY_ID = "AS" + "IAY34FZKBOKMUTVV7A"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"
JWT = (
    "eyJ" + "hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)


def pem(label: str, *, end: bool = True) -> str:
    dashes = "-----"
    block = f"{dashes}BEGIN {label}{dashes}\nMIIEowIBAAKCAQEA7bq9xZ3kQ\nYl0Wm+P4xH2sT8uVbN1cD==\n"
    return block + (f"{dashes}END {label}{dashes}" if end else "")


# (text, secret, kind): the secret must vanish, the marker must appear, and the rest of
# the text must survive byte for byte.
CASES = [
    # connection_string
    (
        "DATABASE_URL=postgres://admin:s3cr3t@db.internal:5432/app",
        "postgres://admin:s3cr3t@db.internal:5432/app",
        "connection_string",
    ),
    (
        "生产库连接串是 mysql://root:Passw0rd!@10.0.0.5:3306/shop，不要外传",
        "mysql://root:Passw0rd!@10.0.0.5:3306/shop",
        "connection_string",
    ),
    (
        "uri = mongodb+srv://app:p%40ss@cluster0.abcde.mongodb.net/db?retryWrites=true",
        "mongodb+srv://app:p%40ss@cluster0.abcde.mongodb.net/db?retryWrites=true",
        "connection_string",
    ),
    (
        "cache at rediss://default:Xyz987@redis.example.com:6380.",
        "rediss://default:Xyz987@redis.example.com:6380",
        "connection_string",
    ),
    (
        "broker (amqp://guest:guest@rabbit:5672/) is up",
        "amqp://guest:guest@rabbit:5672/",
        "connection_string",
    ),
    (
        "git clone https://x-access-token:abc123def@github.com/org/repo.git now",
        "https://x-access-token:abc123def@github.com/org/repo.git",
        "connection_string",
    ),
    (
        "本地缓存 redis://:hunter2@cache:6379/0 已配置",
        "redis://:hunter2@cache:6379/0",
        "connection_string",
    ),
    # password: English key=value, key: value, JSON, YAML, env, query strings
    ("password=hunter2 for the staging box", "hunter2", "password"),
    ('config = {"password": "hunter2", "user": "bob"}', "hunter2", "password"),
    ("DB_PASSWORD: 'tr0ub4dor&3'", "tr0ub4dor&3", "password"),
    ("db:\n  user: app\n  password: hunter\n  port: 5432\n", "hunter", "password"),
    ("export PGPASSWORD=Xk9pQ2 && psql", "Xk9pQ2", "password"),
    ("passwd=letmein", "letmein", "password"),
    ("pwd: S3cure!pass then login", "S3cure!pass", "password"),
    ("pass=letmein123 user=bob", "letmein123", "password"),
    ("client_secret=abc123xyz", "abc123xyz", "password"),
    ("api_key=abcd1234efgh", "abcd1234efgh", "password"),
    ("apikey: 'xyz-123'", "xyz-123", "password"),
    ("token=tok_0123456789", "tok_0123456789", "password"),
    ("GET /v1/items?user=bob&password=s3cret&page=2", "s3cret", "password"),
    ("Server=db;Database=app;User Id=sa;Password=Pa55w0rd;", "Pa55w0rd", "password"),
    # password: Chinese
    ("密码=abc123", "abc123", "password"),
    ("密码：Abc@123，别告诉别人", "Abc@123", "password"),
    ("数据库密码是 pg_admin_123", "pg_admin_123", "password"),
    ("Wi-Fi 密码为 88888888。", "88888888", "password"),
    ("服务器 root 密码 Abc@123 记得改", "Abc@123", "password"),
    ("口令：Tr0ub4dor", "Tr0ub4dor", "password"),
    ("管理员密码就是“admin888”", "admin888", "password"),
    # bearer_token
    ("Authorization: Bearer abcDEF1234567890xyzUVW", "abcDEF1234567890xyzUVW", "bearer_token"),
    (
        "curl -H 'Authorization: Bearer 0123456789abcdefXYZ' https://api.example.com",
        "0123456789abcdefXYZ",
        "bearer_token",
    ),
    ("调用时带上 Bearer AbCdEf0123456789ghij 即可", "AbCdEf0123456789ghij", "bearer_token"),
    # basic_auth
    ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA==", "basic_auth"),
    ("请求头 authorization: basic YWRtaW46c2VjcmV0 已配置", "YWRtaW46c2VjcmV0", "basic_auth"),
    # jwt (a JWT in a Bearer header reports jwt: the specific format wins)
    (f"session cookie {JWT}; expires tomorrow", JWT, "jwt"),
    (f"令牌：{JWT}", JWT, "jwt"),
    (f"Authorization: Bearer {JWT}", JWT, "jwt"),
    # private_key
    (f"deploy key:\n{pem('RSA PRIVATE KEY')}\nthanks", pem("RSA PRIVATE KEY"), "private_key"),
    (f"私钥如下：\n{pem('EC PRIVATE KEY')}\n请妥善保管", pem("EC PRIVATE KEY"), "private_key"),
    (f"ssh: {pem('OPENSSH PRIVATE KEY')} end", pem("OPENSSH PRIVATE KEY"), "private_key"),
    (f"gpg export\n{pem('PGP PRIVATE KEY BLOCK')}", pem("PGP PRIVATE KEY BLOCK"), "private_key"),
    (
        f"truncated paste:\n{pem('PRIVATE KEY', end=False)}",
        pem("PRIVATE KEY", end=False),
        "private_key",
    ),
    # vendor API keys
    (f"export OPENAI_API_KEY={OPENAI}", OPENAI, "openai_key"),
    (f"用这个 key：{OPENAI_LEGACY} 调用接口", OPENAI_LEGACY, "openai_key"),
    (f"ANTHROPIC_API_KEY={ANTHROPIC}", ANTHROPIC, "anthropic_key"),
    (f"Claude 的密钥是 {ANTHROPIC}，别提交", ANTHROPIC, "anthropic_key"),
    (f"aws_access_key_id = {AWS_KEY_ID}", AWS_KEY_ID, "aws_access_key"),
    (f"临时凭证 {AWS_STS_KEY_ID} 一小时后过期", AWS_STS_KEY_ID, "aws_access_key"),
    (f"aws_secret_access_key = {AWS_SECRET}", AWS_SECRET, "aws_secret_key"),
    (f'AWS_SECRET_ACCESS_KEY="{AWS_SECRET}" 已写入 CI', AWS_SECRET, "aws_secret_key"),
    (f"push with {GITHUB} please", GITHUB, "github_token"),
    (f"细粒度令牌 {GITHUB_PAT} 只读", GITHUB_PAT, "github_token"),
    (f"SLACK_BOT_TOKEN={SLACK_BOT}", SLACK_BOT, "slack_token"),
    (f"Slack 用户令牌：{SLACK_USER}", SLACK_USER, "slack_token"),
    (f"maps key {GOOGLE}, restricted", GOOGLE, "google_api_key"),
    (f"谷歌地图 {GOOGLE} 已限制来源", GOOGLE, "google_api_key"),
    (f"stripe.api_key = '{STRIPE_SECRET}'", STRIPE_SECRET, "stripe_key"),
    (f"受限密钥 {STRIPE_RESTRICTED} 仅用于退款", STRIPE_RESTRICTED, "stripe_key"),
    # generic api_key: only behind a key-ish word
    (
        "my Mistral key is Xk92LmQp0aZ7vB4nR8tY3wE1 - rotate monthly",
        "Xk92LmQp0aZ7vB4nR8tY3wE1",
        "api_key",
    ),
    (
        "the webhook secret 9f8e7d6c5b4a39281706f5e4d3c2b1a0 unlocks it",
        "9f8e7d6c5b4a39281706f5e4d3c2b1a0",
        "api_key",
    ),
    ("密钥：8f3kd92LmQp0xZ7vB4nR5tY", "8f3kd92LmQp0xZ7vB4nR5tY", "api_key"),
    ("令牌 a8F3kd92LmQp0xZ7vB4nR8tY 已失效", "a8F3kd92LmQp0xZ7vB4nR8tY", "api_key"),
]


@pytest.mark.parametrize(("text", "secret", "kind"), CASES)
def test_redacts_secret_and_keeps_the_rest(text: str, secret: str, kind: str) -> None:
    result = redact(text)
    marker = f"[REDACTED:{kind}]"
    assert secret not in result.text
    assert marker in result.text
    assert result.text == text.replace(secret, marker)
    assert result.kinds == (kind,)


def test_every_kind_is_covered() -> None:
    kinds = {kind for _, _, kind in CASES}
    assert kinds >= {
        "connection_string",
        "password",
        "bearer_token",
        "basic_auth",
        "jwt",
        "private_key",
        "openai_key",
        "anthropic_key",
        "aws_access_key",
        "aws_secret_key",
        "github_token",
        "slack_token",
        "google_api_key",
        "stripe_key",
        "api_key",
    }
    for kind in kinds:
        assert sum(k == kind for _, _, k in CASES) >= 2, kind


@pytest.mark.parametrize(
    "text",
    [
        "We discussed the memory architecture over lunch and agreed to ship on Friday.",
        "我们决定下周一上线新版本，记得提前通知运营同学。",
        "项目用 PostgreSQL 16 做主数据库，不用 MongoDB",
        "password reset flow is broken",
        "Forgot password: click the link in the email",
        "if password == expected:",
        "密码要定期更换",
        "密码是什么？忘了。",
        "密码为空时拒绝登录",
        "the token bucket rate limiter",
        "Tokens: 1500 prompt, 300 completion",
        "the primary key of the table is id",
        "Tests pass: 42 of 50",
        "the bearer of bad news",
        "commit 3f9a2b7c1d4e5f60718293a4b5c6d7e8f9012345 fixed it",
        "request id 550e8400-e29b-41d4-a716-446655440000",
        "/home/alice/projects/memhub/core/src/memhub/redact.py",
        "~/.ssh/id_rsa and /etc/ssl/private/server.key",
        r"C:\Users\alice\secrets\notes.txt",
        "https://docs.python.org/3/library/re.html",
        "postgres://localhost/db",
        "postgres://app@db.internal:5432/app",
        "sk",
        "skip the sk step and use scikit-learn (sk-learn)",
        "v1.2.3 and Python 3.11.7; upgrade to 2.0.0-rc.1+build.5",
        "email alice@example.com or bob.smith+tag@example.co.uk",
        "use BEGIN IMMEDIATE for write transactions",
        "PRIVATE KEY rotation is scheduled, see -----BEGIN CERTIFICATE-----",
        "sharding_key = user_id, partition_key = tenant_id",
    ],
)
def test_leaves_non_secrets_alone(text: str) -> None:
    assert redact(text) == Redaction(text=text, kinds=())


def test_redact_many_finds_what_redact_finds_text_by_text() -> None:
    # secrets of every kind mixed with plain texts and full-width ones: the rules a batch
    # leaves out for all its texts must be none that one of them needed
    plain = [
        "the token bucket rate limiter",
        "周五部署 Atlas",
        "ｍｙ ｐａｓｓｗｏｒｄ ｉｓ ｈｕｎｔｅｒ２",
    ]
    texts = [text for text, _, _ in CASES] + plain
    assert redact_many(texts) == [redact(t) for t in texts]
    for text, _, _ in CASES:  # each secret alone among plain texts
        assert redact_many([*plain, text]) == [redact(t) for t in [*plain, text]]
    assert redact_many([]) == []


@pytest.mark.parametrize(("text", "secret", "kind"), CASES)
def test_is_idempotent(text: str, secret: str, kind: str) -> None:
    once = redact(text)
    assert redact(once.text) == Redaction(text=once.text, kinds=())


def test_kinds_are_unique_in_order_of_first_appearance() -> None:
    text = (
        f"密码=abc123, key {OPENAI}, db postgres://u:p4ss@h/db, "
        f"password=x9, again {OPENAI_LEGACY}, ssh {pem('RSA PRIVATE KEY')}"
    )
    result = redact(text)
    assert result.kinds == ("password", "openai_key", "connection_string", "private_key")
    assert result.text.count("[REDACTED:password]") == 2
    assert result.text.count("[REDACTED:openai_key]") == 2


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"api_key={OPENAI}", "api_key=[REDACTED:openai_key]"),
        ("password=postgres://u:p4ss@h/db", "password=[REDACTED:connection_string]"),
        (f'"private_key": "{pem("PRIVATE KEY")}"', '"private_key": "[REDACTED:private_key]"'),
    ],
)
def test_specific_kinds_win_over_generic_assignments(text: str, expected: str) -> None:
    assert redact(text).text == expected


def test_redaction_is_frozen() -> None:
    result = redact("password=hunter2")
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.text = "x"  # type: ignore[misc]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\x00\x01\x7f",
        "\ud800 lone surrogate",
        "🔑 密钥 🔑 " * 50,
        "-----BEGIN",
        "-----BEGIN RSA PRIVATE KEY-----",
        "password=",
        'password="',
        "密码是",
        "[REDACTED:",
        "postgres://:@",
        "Bearer ",
        "eyJ.eyJ.",
    ],
)
def test_never_raises(text: str) -> None:
    assert isinstance(redact(text), Redaction)


@pytest.mark.parametrize(
    "unit",
    [
        # realistic notes with a few secrets sprinkled in
        "用户偏好中文回复。The deploy uses postgres://app:s3cr3t@db/app "
        f"and {GITHUB}. 密码：Abc@123。\n",
        # adversarial repetitions that would make careless patterns rescan the rest of the text
        "aws_secret_access_key=",
        "key=",
        "password=“a ",
        "密码 a",
        "x://a:",
        "a.",
        "sk-",
        "Bearer " + "a" * 40 + " ",
        "-----BEGIN ",
    ],
)
def test_200kb_input_is_fast(unit: str) -> None:
    text = (unit * (200_000 // len(unit) + 1))[:200_000]
    start = time.perf_counter()
    result = redact(text)
    elapsed = time.perf_counter() - start
    assert elapsed < 1.0, f"{elapsed:.2f}s"
    if GITHUB in unit:
        assert GITHUB not in result.text
        assert "s3cr3t" not in result.text
