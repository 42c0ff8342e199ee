"""One example per secret format memhub redacts, and a near miss that must stay.

Each row: ``(format, kind, text, secret, near_miss)``. The secret must vanish from
``text`` behind ``[REDACTED:<kind>]``; ``near_miss`` looks like the format but is not a
credential (a prefix used as a word, a token too short, prose about a password) and
must come back unchanged. Fake credentials are assembled at run time from a seeded
generator, so no scanner flags this file and every run uses the same values.
"""

from __future__ import annotations

import random
import string

_rng = random.Random(13)
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
UPPER = string.ascii_uppercase + string.digits
B64 = ALNUM + "+/"


def r(n: int, alphabet: str = ALNUM) -> str:
    """``n`` random characters; always holds a digit and a letter when the alphabet has both."""
    while True:
        s = "".join(_rng.choice(alphabet) for _ in range(n))
        digit = not set(alphabet) & set(string.digits) or any(c.isdigit() for c in s)
        letter = not set(alphabet) & set(string.ascii_letters) or any(c.isalpha() for c in s)
        if n < 4 or (digit and letter):
            return s


def _p(*parts: str) -> str:
    return "".join(parts)


_AZURE_KEY = r(86, B64) + "=="
_SAS_SIG = r(43, ALNUM) + "%3D"
_PEM = _p("-----BEGIN ", "RSA PRIVATE KEY-----\n", r(64, B64), "\n-----END RSA PRIVATE KEY-----")
_JWT = _p("eyJ", r(20), ".", "eyJ", r(30), ".", r(43))

FORMATS: list[tuple[str, str, str, str, str]] = [
    (
        "pem private key",
        "private_key",
        f"key:\n{_PEM}\n",
        _PEM,
        "see -----BEGIN CERTIFICATE----- below",
    ),
    (
        "connection string",
        "connection_string",
        _p("db postgres://app:", r(12), "@db:5432/x ok"),
        None,
        "postgres://app@db.internal:5432/app",
    ),
    (
        "azure storage connection string",
        "azure_key",
        f"DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={_AZURE_KEY};EndpointSuffix=core.windows.net",
        _AZURE_KEY,
        "set AccountKey= in the portal, AccountName=acme",
    ),
    (
        "azure service bus key",
        "azure_key",
        _p(
            "Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=root;",
            "SharedAccessKey=",
            r(44, B64),
        ),
        None,
        "SharedAccessKeyName=RootManageSharedAccessKey",
    ),
    (
        "azure sas sig",
        "azure_sas",
        f"https://acme.blob.core.windows.net/c?sv=2022-11-02&se=2026&sp=r&sig={_SAS_SIG}",
        _SAS_SIG,
        "the sig= parameter carries the signature, e.g. sig=abc",
    ),
    (
        "azure ad client secret",
        "azure_ad_secret",
        _p("client secret ", r(3), "8Q~", r(34, ALNUM + "_~.-")),
        None,
        "Q~ is how Azure AD secrets start",
    ),
    (
        "slack webhook",
        "webhook_url",
        _p(
            "post to https://hooks.slack.com/services/T", r(8, UPPER), "/B", r(8, UPPER), "/", r(24)
        ),
        None,
        "docs at https://api.slack.com/messaging/webhooks",
    ),
    (
        "discord webhook",
        "webhook_url",
        _p("https://discord.com/api/webhooks/", r(18, string.digits), "/", r(68)),
        None,
        "https://discord.com/developers/docs/resources/webhook",
    ),
    (
        "teams webhook",
        "webhook_url",
        _p("https://acme.webhook.office.com/webhookb2/", r(36, HEX), "@", r(36, HEX)),
        None,
        "https://learn.microsoft.com/teams/webhooks",
    ),
    (
        "slack bot token",
        "slack_token",
        _p("xox", "b-", r(12, string.digits), "-", r(24)),
        None,
        "xoxb- tokens go in env",
    ),
    (
        "slack app token",
        "slack_token",
        _p("xapp-1-", r(11, UPPER), "-", r(13, string.digits), "-", r(64, HEX)),
        None,
        "xapp- is the app-level prefix",
    ),
    (
        "sendgrid",
        "sendgrid_key",
        _p("SENDGRID=", "SG.", r(22), ".", r(43)),
        None,
        "SG.1 is a version, SG.abc.def too",
    ),
    (
        "npm",
        "npm_token",
        _p("//registry/:_authToken=", "npm_", r(36)),
        None,
        "npm_config_cache and npm_package_name",
    ),
    ("gitlab pat", "gitlab_token", _p("gl", "pat-", r(20)), None, "glpat-short is not one"),
    ("gitlab runner", "gitlab_token", _p("GR1348941", r(20)), None, "GR1348941 alone"),
    (
        "huggingface",
        "huggingface_token",
        _p("HF_TOKEN=", "hf_", r(34, string.ascii_letters)),
        None,
        "from huggingface_hub import hf_hub_download",
    ),
    ("openai", "openai_key", _p("sk-", "proj-", r(40)), None, "skip the sk step and use sk-learn"),
    ("anthropic", "anthropic_key", _p("sk-", "ant-api03-", r(40)), None, "sk-ant- is the prefix"),
    ("stripe secret", "stripe_key", _p("sk_", "live_", r(24)), None, "sk_live_ keys only"),
    ("stripe webhook secret", "stripe_key", _p("whsec_", r(32)), None, "whsec_ prefix"),
    ("github classic", "github_token", _p("ghp", "_", r(36)), None, "ghp_ tokens expire"),
    (
        "github fine-grained",
        "github_token",
        _p("github", "_pat_", r(22), "_", r(59)),
        None,
        "github_pat_ prefix",
    ),
    (
        "google api key",
        "google_api_key",
        _p("AI", "za", r(35, ALNUM + "_-")),
        None,
        "AIza is the prefix",
    ),
    ("google oauth secret", "google_oauth", _p("GOCSPX-", r(28)), None, "GOCSPX- prefix"),
    ("google access token", "google_oauth", _p("ya29.", r(60)), None, "ya29.a0 only"),
    (
        "aws access key id",
        "aws_access_key",
        _p("AK", "IA", r(16, UPPER)),
        None,
        "AKIA followed by 16",
    ),
    (
        "aws secret key",
        "aws_secret_key",
        _p("aws_secret_access_key = ", r(40, B64)),
        None,
        "aws_secret_access_key = ${AWS_SECRET}",
    ),
    ("alibaba", "alibaba_key", _p("LTAI", r(20)), None, "LTAI prefix"),
    ("tencent", "tencent_key", _p("AKID", r(32)), None, "AKID prefix"),
    ("shopify", "shopify_token", _p("shp", "at_", r(32, HEX)), None, "shpat_ prefix"),
    (
        "pypi",
        "pypi_token",
        _p("pypi-", "AgEIcHlwaS5vcmc", r(60, ALNUM + "_-")),
        None,
        "pypi-simple index",
    ),
    ("rubygems", "rubygems_key", _p("rubygems_", r(48, HEX)), None, "rubygems_version"),
    ("docker hub", "dockerhub_token", _p("dckr_pat_", r(27)), None, "dckr_pat_ prefix"),
    ("digitalocean", "digitalocean_token", _p("dop_v1_", r(64, HEX)), None, "dop_v1_ prefix"),
    ("databricks", "databricks_token", _p("dapi", r(32, HEX)), None, "dapi is an api word"),
    ("doppler", "doppler_token", _p("dp.pt.", r(43)), None, "dp.pt. prefix"),
    (
        "dynatrace",
        "dynatrace_token",
        _p("dt0c01.", r(24, UPPER), ".", r(64, UPPER)),
        None,
        "dt0c01. prefix",
    ),
    ("postman", "postman_key", _p("PMAK-", r(24, HEX), "-", r(34, HEX)), None, "PMAK- prefix"),
    ("pulumi", "pulumi_token", _p("pul-", r(40, HEX)), None, "pul-request"),
    ("linear", "linear_key", _p("lin_api_", r(40)), None, "lin_api_ prefix"),
    ("atlassian", "atlassian_token", _p("ATATT3", r(186, ALNUM + "_-")), None, "ATATT3 prefix"),
    ("bitbucket", "bitbucket_token", _p("ATBB", r(32)), None, "ATBB prefix"),
    ("twilio", "twilio_key", _p("SK", r(32, HEX)), None, "SKU 12345"),
    ("mailgun", "mailgun_key", _p("key-", r(32, HEX)), None, "key-value store"),
    ("mailchimp", "mailchimp_key", _p(r(32, HEX), "-us", "12"), None, "en-us locale"),
    ("brevo", "brevo_key", _p("xkeysib-", r(64, HEX), "-", r(16)), None, "xkeysib- prefix"),
    ("square", "square_token", _p("sq0", "atp-", r(22)), None, "sq0atp- prefix"),
    ("facebook", "facebook_token", _p("EAAB", r(60)), None, "EAAB prefix"),
    (
        "telegram bot",
        "telegram_token",
        _p(r(10, string.digits), ":AA", r(33, ALNUM + "_-")),
        None,
        "at 12:30 AA meeting",
    ),
    ("discord bot", "discord_token", _p("M", r(23), ".", r(6), ".", r(27)), None, "Mr. Smith.Jr"),
    ("new relic", "newrelic_key", _p("NRAK-", r(27, UPPER)), None, "NRAK- prefix"),
    ("sentry", "sentry_token", _p("sntrys_", r(60)), None, "sntrys_ prefix"),
    ("grafana", "grafana_token", _p("glsa_", r(32), "_", r(8, HEX)), None, "glsa_ prefix"),
    (
        "age",
        "age_key",
        _p(
            "AGE-SECRET-KEY-1",
            "".join(_rng.choice("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L") for _ in range(58)),
        ),
        None,
        "AGE-SECRET-KEY-1 prefix",
    ),
    ("1password", "onepassword_token", _p("ops_eyJ", r(250, B64)), None, "ops_eyJ prefix"),
    ("artifactory", "artifactory_key", _p("AKCp", r(69)), None, "AKCp prefix"),
    ("vault", "vault_token", _p("hvs.", r(94)), None, "hvs.example"),
    ("terraform cloud", "terraform_token", _p(r(14), ".atlasv1.", r(67)), None, "atlasv1 tokens"),
    ("planetscale", "planetscale_token", _p("pscale_tkn_", r(43)), None, "pscale_tkn_ prefix"),
    ("mapbox", "mapbox_token", _p("sk.eyJ", r(60), ".", r(22)), None, "sk.eyJ prefix"),
    ("groq", "groq_key", _p("gsk_", r(52)), None, "gsk_ prefix"),
    ("xai", "xai_key", _p("xai-", r(80)), None, "xai-sdk package"),
    ("perplexity", "perplexity_key", _p("pplx-", r(48)), None, "pplx-api docs"),
    ("replicate", "replicate_token", _p("r8_", r(37)), None, "r8_ prefix"),
    (
        "langsmith",
        "langsmith_key",
        _p("lsv2_pt_", r(32, HEX), "_", r(10, HEX)),
        None,
        "lsv2_pt_ prefix",
    ),
    ("notion", "notion_token", _p("ntn_", r(11, string.digits), r(35)), None, "ntn_ prefix"),
    ("airtable", "airtable_token", _p("pat", r(14), ".", r(64, HEX)), None, "pattern.match"),
    ("heroku", "heroku_key", _p("HRKU-", r(60, ALNUM + "_-")), None, "HRKU- prefix"),
    ("fly.io", "flyio_token", _p("fo1_", r(43)), None, "fo1_ prefix"),
    ("jwt", "jwt", f"cookie {_JWT};", _JWT, 'eyJ is base64 for {"'),
    (
        "bearer header",
        "bearer_token",
        _p("Authorization: Bearer ", r(32)),
        None,
        "the bearer of bad news",
    ),
    (
        "basic auth",
        "basic_auth",
        _p("Authorization: Basic ", r(24, B64)),
        None,
        "basic authorization flow",
    ),
    (
        "password assignment",
        "password",
        "password=hunter2 for staging",
        "hunter2",
        "if password == expected:",
    ),
    (
        "env password in a command",
        "password",
        "PGPASSWORD=Xk9pQ2 psql -h db",
        "Xk9pQ2",
        "PGPASSWORD is read by psql",
    ),
    (
        "json password",
        "password",
        '{"password": "tr0ub4dor&3"}',
        "tr0ub4dor&3",
        '{"password_hint": "pet"}',
    ),
    (
        "english prose",
        "password",
        "my password is swordfish, don't tell",
        "swordfish",
        "my password is too short and the password is required",
    ),
    (
        "english prose quoted",
        "password",
        'the passphrase was "correct horse battery staple"',
        "correct horse battery staple",
        "the passphrase was forgotten",
    ),
    ("chinese assignment", "password", "密码=abc123", "abc123", "密码要定期更换"),
    ("chinese prose 叫", "password", "我的密码叫 hunter2", "hunter2", "密码叫什么来着？"),
    (
        "chinese prose 是",
        "password",
        "数据库密码是 pg_admin_123",
        "pg_admin_123",
        "数据库密码是什么",
    ),
    (
        "full-width",
        "password",
        "ｐａｓｓｗｏｒｄ＝ｈｕｎｔｅｒ２",
        "ｈｕｎｔｅｒ２",
        "ｐａｓｓｗｏｒｄ　ｒｅｓｅｔ",
    ),
    (
        "generic key",
        "api_key",
        _p("my Mistral key is ", r(24)),
        None,
        "the primary key of the table is id",
    ),
    ("chinese key", "api_key", _p("密钥：", r(24)), None, "密钥要保管好"),
]


def rows() -> list[tuple[str, str, str, str, str]]:
    """The table with each ``None`` secret filled in: the text's token the kind names."""
    out = []
    for name, kind, text, secret, near in FORMATS:
        if secret is None:
            secret = _secret_in(text)
        out.append((name, kind, text, secret, near))
    return out


def _secret_in(text: str) -> str:
    # the longest whitespace-separated token, without a leading "key:" style label
    token = max(text.replace(";", " ").split(), key=len)
    for label in ("SENDGRID=", "HF_TOKEN=", "//registry/:_authToken=", "SharedAccessKey="):
        token = token.split(label)[-1]
    if "SharedAccessKey=" in text:
        token = text.split("SharedAccessKey=")[-1]
    return token
