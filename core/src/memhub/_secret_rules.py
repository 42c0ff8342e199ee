"""The secret formats ``memhub.redact`` recognises: one named rule per format, in order.

The vendor formats follow the public rule sets of two secret scanners: gitleaks'
default ``config/gitleaks.toml`` (rule ids given beside each rule) and Yelp's
detect-secrets plugins (``aws``, ``azure_storage_key``, ``basic_auth``, ``discord``,
``jwt``, ``keyword``, ``mailchimp``, ``npm``, ``private_key``, ``sendgrid``,
``slack``, ``square_oauth``, ``stripe``, ``telegram_token``, ``twilio``). Where those
anchor a token on a variable name and an entropy score, the rules here anchor it on
the vendor's fixed prefix and its length instead, so an ordinary word never matches.

Every pattern stays linear on hostile input: a lookbehind keeps a match from
starting inside a token, each repeated class is bounded or greedy without a
failing suffix, and rules with a literal prefix only run when the text holds one of
their ``keywords`` (a substring test, as gitleaks does).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A match may start only where a token starts. Only ASCII letters and digits block a
# match, so a secret written right after Chinese text ("密钥sk-...") is still found.
WORD_EDGE = r"(?<![A-Za-z0-9])"
TOKEN_EDGE = r"(?<![A-Za-z0-9_-])"
_END = r"(?![A-Za-z0-9_-])"

# A bare credential value: printable ASCII without spaces, quotes or list separators,
# not ending in sentence punctuation. ASCII-only so "密码=abc123，下次换" stops at "，".
_NOT_TOKEN = r"\x00-\x20\x7f-\U0010ffff\"'`,;&"
TOKEN = rf"[^{_NOT_TOKEN}]*[^{_NOT_TOKEN}.:!?)\]}}>]"
# An opening quote also ends the scan, which keeps runs of unclosed quotes linear.
QUOTED = r"\"[^\"\r\n]+\"|'[^'\r\n]+'|“[^“”\r\n]+”|「[^「」\r\n]+」"
# A reference to a variable ("$DB_PASSWORD", "${TOKEN}") names a secret without holding it.
_VARIABLE = r"(?!\$(?:\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*)(?:[\s\"',;]|\Z))"
VALUE = rf"{_VARIABLE}(?P<v>{QUOTED}|{TOKEN})"
# Digits or symbols: what tells "password: hunter2" apart from "password: click here".
SECRETISH = r"(?=[A-Za-z]*[0-9_@#$%^&*+=/\\~-])"

PASSWORD_KEYS = (
    r"(?:pg)?password|passwd|pwd|passphrase|passcode|secret|client[_-]?secret"
    r"|(?:api|secret|access|private)[_-]?key"
    r"|(?:access|auth|refresh|api|session|bot)[_-]?token|token"
    # Bare "pass" is too common in prose ("tests pass: 42"); accept it only with "=".
    r"|pass(?=[\"']?[ \t]*=)"
)
_PASSWORD_SEP = (
    r"[\"']?(?:"
    r"[ \t]*=[ \t]*(?!=)"  # password=x, PASSWORD = x; "==" is a comparison
    r"|[ \t]*:[ \t]*(?=[\"'“「])"  # "password": "x"
    r"|:(?![ \t])"  # password:x
    # "password: x" reads like prose unless x looks like a secret or ends the line (YAML).
    r"|[ \t]*:[ \t]+(?:" + SECRETISH + r"|(?=[A-Za-z]+[ \t]*(?:\r?\n|\Z)))"
    r")"
)
# "my password is swordfish": prose. What follows "is" must not be an ordinary word
# that describes the password instead of being it.
_PROSE_WORDS = (
    r"wrong|incorrect|invalid|expired|required|correct|right|too|the|a|an|not|same|weak|strong|"
    r"set|reset|changed|missing|empty|needed|ok|okay|fine|case|stored|hashed|saved|valid|"
    r"different|secure|insecure|short|long|easy|hard|in|on|at|still|now|being|also|very|"
    r"always|never|my|your|his|her|their|our|this|that|it|what|which|here|there|shown|"
    r"hidden|known|unknown|mandatory|optional|protected|encrypted|case-sensitive|forgotten|"
    r"ignored|accepted|rejected|used|sent|only|just|no|none|null|blank|below|above|for|of|"
    r"and|or|but|so|because|usually|probably|definitely|really|managed|generated|rotated"
)
_PROSE_VALUE = rf"(?P<v>{QUOTED}|(?!(?i:{_PROSE_WORDS})(?![A-Za-z0-9])){TOKEN})"
ZH_SEP = (
    r"[ \t\u3000]*(?:[=:：]|(?:就|也|都)?(?:[是为為叫]|叫做|设为|设成|改成|改为)[:：]?)[ \t\u3000]*"
    r"|[ \t\u3000]+" + SECRETISH  # "root 密码 Abc@123"
)
# Between a key-ish word and a generic key: "key: x", "key is x", "密钥是x", "token x".
_LOOSE_SEP = (
    r"[\"']?(?:[ \t]*[:=：][ \t]*|[ \t]+(?:is|was)[ \t]+|[ \t]*(?:就|也)?[是为為][ \t]*|[ \t]+)"
)
# Random-looking: 20+ key characters mixing letters and digits, so plain words never match.
# "=" only as trailing padding: inside the class it would let "key=key=..." rescan.
_HIGH_ENTROPY = r"(?=[A-Za-z_+/-]*[0-9])(?=[0-9_+/-]*[A-Za-z])[A-Za-z0-9_+/-]{20,}={0,2}"
_URL_CHAR = r"\x00-\x20\x7f-\U0010ffff\"'<>`"
_B64 = r"[A-Za-z0-9+/]"

WHOLE = 0
"""Replace the whole match."""
KEY_VALUE = "v"
"""Replace only the value after a key ("password=hunter2" → "password=[REDACTED:password]")."""


@dataclass(frozen=True)
class Rule:
    """One secret format: what it is called, how it looks, and which part is the secret.

    Attributes:
        kind: the marker name, ``[REDACTED:<kind>]``.
        pattern: the compiled regex (ASCII classes; linear on any input).
        group: ``WHOLE`` or ``KEY_VALUE`` (the named group ``v``).
        keywords: lower-case substrings of which the text must hold one for the rule to run
            (empty: always run).
    """

    kind: str
    pattern: re.Pattern[str]
    group: str | int = WHOLE
    keywords: tuple[str, ...] = ()


def _rule(
    kind: str, pattern: str, *keywords: str, group: str | int = WHOLE, flags: int = 0
) -> Rule:
    return Rule(kind, re.compile(pattern, re.ASCII | flags), group, keywords)


def _token(kind: str, body: str, *keywords: str) -> Rule:
    """A vendor token with a fixed prefix: starts at a token start, ends at a token end."""
    return _rule(kind, rf"{TOKEN_EDGE}(?:{body}){_END}", *keywords)


# Order is precedence: where two matches overlap, the earlier rule wins. Private key
# blocks and URLs come first because they contain text other rules would split up;
# vendor formats come before the auth-header and key=value rules so that
# "api_key=sk-..." reports openai_key; the generic high-entropy rule comes last.
RULES: tuple[Rule, ...] = (
    # gitleaks private-key, pkcs12; detect-secrets PrivateKeyDetector
    _rule(
        "private_key",
        r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----.*?"
        r"(?:-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|\Z)",
        "private key",
        flags=re.DOTALL,
    ),
    # gitleaks slack-webhook-url, discord-webhook (detect-secrets DiscordBotTokenDetector is
    # below), Microsoft Teams incoming webhooks: the URL itself is the credential.
    _rule(
        "webhook_url",
        r"(?i:https?://)?(?:hooks\.slack\.com/(?:services|workflows|triggers)/"
        r"|(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/"
        r"|[a-z0-9-]{1,63}\.webhook\.office\.com/webhookb2/)[A-Za-z0-9_/@.+-]{20,}",
        "hooks.slack.com",
        "/api/webhooks/",
        "webhook.office.com",
    ),
    _rule(
        "connection_string",
        rf"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{{0,31}}://"
        rf"[^{_URL_CHAR}:/@]{{0,256}}:[^{_URL_CHAR}/@]{{1,512}}@"
        rf"(?:[^{_URL_CHAR}]*[^{_URL_CHAR}.,;:!?)\]}}])?",
        "://",
    ),
    # detect-secrets AzureStorageKeyDetector; gitleaks azure connection strings:
    # AccountKey / SharedAccessKey in a connection string, sig= in a SAS URL or token.
    _rule(
        "azure_key",
        rf"{WORD_EDGE}(?i:AccountKey|SharedAccessKey|Shared_Access_Key)[ \t]*=[ \t]*"
        rf"(?P<v>{_B64}{{20,}}={{0,2}})",
        "accountkey",
        "sharedaccesskey",
        "shared_access_key",
        group=KEY_VALUE,
    ),
    _rule(
        "azure_sas",
        r"(?<![A-Za-z0-9_])sig=(?P<v>(?:[A-Za-z0-9+/]|%[0-9A-Fa-f]{2}){20,}(?:=|%3[Dd]){0,2})",
        "sig=",
        group=KEY_VALUE,
    ),
    # gitleaks azure-ad-client-secret
    _rule(
        "azure_ad_secret",
        r"(?<![A-Za-z0-9_~.])[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])",
        "q~",
    ),
    _token("anthropic_key", r"sk-ant-[A-Za-z0-9_-]{20,}", "sk-ant-"),
    _token("openai_key", r"sk-(?=[A-Za-z_-]*[0-9])[A-Za-z0-9_-]{20,}", "sk-"),
    # gitleaks stripe-access-token; detect-secrets StripeDetector; whsec_ webhook secrets
    _token(
        "stripe_key",
        r"(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,}",
        "_live_",
        "_test_",
        "whsec_",
    ),
    # gitleaks github-pat, github-oauth, github-app-token, github-refresh-token,
    # github-fine-grained-pat
    _token(
        "github_token",
        r"gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}",
        "gh",
        "github_pat_",
    ),
    # gitleaks gitlab-pat, gitlab-ptt, gitlab-rrt, gitlab-runner-authentication-token,
    # gitlab-deploy-token, ...
    _token(
        "gitlab_token",
        r"gl(?:pat|ptt|rt|dt|cbt|soat|ffct|imt|agent|oas|ft)-[A-Za-z0-9_-]{20,}"
        r"|GR1348941[A-Za-z0-9_-]{20,}",
        "gl",
        "gr1348941",
    ),
    # gitleaks slack-bot-token, slack-user-token, slack-app-token, ...; detect-secrets SlackDetector
    _token(
        "slack_token",
        r"xox[abeoprs]-[A-Za-z0-9-]{10,}|xapp-[0-9]-[A-Za-z0-9-]{10,}",
        "xox",
        "xapp-",
    ),
    # gitleaks sendgrid-api-token; detect-secrets SendGridDetector
    _token("sendgrid_key", r"SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}", "sg."),
    # gitleaks npm-access-token; detect-secrets NpmDetector
    _token("npm_token", r"npm_[A-Za-z0-9]{36,}", "npm_"),
    # gitleaks huggingface-access-token, huggingface-organization-api-token
    _token("huggingface_token", r"hf_[A-Za-z0-9]{30,}|api_org_[A-Za-z0-9]{30,}", "hf_", "api_org_"),
    _token("google_api_key", r"AIza[A-Za-z0-9_-]{35}", "aiza"),
    # gitleaks gcp client secret / oauth access token
    _token(
        "google_oauth", r"GOCSPX-[A-Za-z0-9_-]{28}|ya29\.[A-Za-z0-9_-]{30,}", "gocspx-", "ya29."
    ),
    # gitleaks aws-access-token; detect-secrets AWSKeyDetector
    _rule(
        "aws_access_key",
        rf"{WORD_EDGE}(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{{16}}(?![A-Za-z0-9])",
        "a3t",
        "akia",
        "asia",
        "abia",
        "acca",
    ),
    _rule(
        "aws_secret_key",
        rf"{WORD_EDGE}(?i:aws_?secret_?(?:access_?)?key)[\"']?[ \t]*[:=][ \t]*[\"']?"
        r"(?P<v>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
        "aws",
        group=KEY_VALUE,
    ),
    _token("alibaba_key", r"LTAI[A-Za-z0-9]{20}", "ltai"),  # gitleaks alibaba-access-key-id
    _token("tencent_key", r"AKID[A-Za-z0-9]{32}", "akid"),  # Tencent Cloud SecretId
    _token("shopify_token", r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}", "shp"),  # gitleaks shopify-*
    _token(
        "pypi_token", r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}", "pypi-"
    ),  # gitleaks pypi-upload-token
    _token("rubygems_key", r"rubygems_[a-f0-9]{48}", "rubygems_"),  # gitleaks rubygems-api-token
    _token("dockerhub_token", r"dckr_pat_[A-Za-z0-9_-]{27,}", "dckr_pat_"),
    _token("digitalocean_token", r"do[opr]_v1_[a-f0-9]{64}", "_v1_"),  # gitleaks digitalocean-*
    _token(
        "databricks_token", r"dapi[a-f0-9]{32}(?:-[0-9])?", "dapi"
    ),  # gitleaks databricks-api-token
    _token("doppler_token", r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}", "dp."),
    _token("dynatrace_token", r"dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}", "dt0c01."),
    _token("postman_key", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}", "pmak-"),  # gitleaks postman-api-token
    _token("pulumi_token", r"pul-[a-f0-9]{40}", "pul-"),
    _token("linear_key", r"lin_api_[A-Za-z0-9]{40}", "lin_api_"),
    _token("atlassian_token", r"ATATT3[A-Za-z0-9_=-]{180,}", "atatt3"),
    _token("bitbucket_token", r"ATBB[A-Za-z0-9_=.-]{32,}", "atbb"),
    _token("twilio_key", r"SK[0-9a-f]{32}", "sk"),  # detect-secrets TwilioKeyDetector
    _token("mailgun_key", r"key-[0-9a-f]{32}", "key-"),  # gitleaks mailgun-private-api-token
    _token(
        "mailchimp_key", r"[0-9a-f]{32}-us[0-9]{1,2}", "-us"
    ),  # detect-secrets MailchimpDetector
    _token("brevo_key", r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}", "xkeysib-"),  # gitleaks sendinblue
    _token(
        "square_token", r"sq0(?:atp|csp)-[A-Za-z0-9_-]{22,}|EAAA[A-Za-z0-9_-]{60}", "sq0", "eaaa"
    ),
    _token("facebook_token", r"EAA[BCDM][A-Za-z0-9]{50,}", "eaa"),  # gitleaks facebook-access-token
    _rule("telegram_token", rf"{WORD_EDGE}[0-9]{{8,10}}:AA[A-Za-z0-9_-]{{33}}{_END}", ":aa"),
    # detect-secrets DiscordBotTokenDetector
    _token(
        "discord_token", r"[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}", "."
    ),
    _token("newrelic_key", r"NRAK-[A-Z0-9]{27}|NRJS-[a-f0-9]{19}", "nrak-", "nrjs-"),
    _token("sentry_token", r"sntry[su]_[A-Za-z0-9+/=_]{40,}", "sntry"),
    _token(
        "grafana_token",
        r"glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}",
        "glc_",
        "glsa_",
    ),
    _token("age_key", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}", "age-secret-key-"),
    _token("onepassword_token", r"ops_eyJ[A-Za-z0-9+/]{100,}={0,3}", "ops_eyj"),
    _token("artifactory_key", r"AKCp[A-Za-z0-9]{69}", "akcp"),
    _token("vault_token", r"hv[sb]\.[A-Za-z0-9_-]{90,}", "hvs.", "hvb."),  # gitleaks vault-*-token
    _token("terraform_token", r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}", "atlasv1"),
    _token("planetscale_token", r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_=.-]{32,64}", "pscale_"),
    _token("mapbox_token", r"sk\.eyJ[A-Za-z0-9]{50,}\.[A-Za-z0-9_-]{20,}", "sk.eyj"),
    _token("groq_key", r"gsk_[A-Za-z0-9]{48,}", "gsk_"),
    _token("xai_key", r"xai-[A-Za-z0-9]{70,}", "xai-"),
    _token("perplexity_key", r"pplx-[A-Za-z0-9]{40,}", "pplx-"),
    _token("replicate_token", r"r8_[A-Za-z0-9]{37}", "r8_"),
    _token("langsmith_key", r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}", "lsv2_"),
    _token(
        "notion_token", r"ntn_[0-9]{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43}", "ntn_", "secret_"
    ),
    _token("airtable_token", r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}", "pat"),
    _token("heroku_key", r"HRKU-[A-Za-z0-9_-]{60}", "hrku-"),
    _token(
        "flyio_token",
        r"fo1_[A-Za-z0-9_-]{43}|fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3}",
        "fo1_",
        "fm1",
        "fm2",
    ),
    _rule(
        "jwt",
        rf"{TOKEN_EDGE}eyJ[A-Za-z0-9_-]{{8,}}\.[A-Za-z0-9_-]{{8,}}\.[A-Za-z0-9_-]{{8,}}",
        "eyj",
    ),
    _rule(
        "bearer_token",
        # The token must hold an uppercase letter, digit or symbol: "bearer" in prose is
        # followed by lowercase words.
        r"(?<![A-Za-z])(?i:bearer)[ \t]+"
        r"(?P<v>(?=[a-z._~-]*[A-Z0-9+/=])[A-Za-z0-9._~+/=-]{16,})",
        "bearer",
        group=KEY_VALUE,
    ),
    _rule(
        "basic_auth",
        rf"{WORD_EDGE}(?i:authorization)[\"']?[ \t]*[:=][ \t]*[\"']?(?i:basic)[ \t]+"
        r"(?P<v>[A-Za-z0-9+/]{4,}={0,2})",
        "authorization",
        group=KEY_VALUE,
    ),
    # detect-secrets KeywordDetector: key = value, key: value, JSON, YAML, env, query strings
    # Every key of PASSWORD_KEYS holds one of these keywords (matched ASCII-only).
    _rule(
        "password",
        rf"{WORD_EDGE}(?i:{PASSWORD_KEYS}){_PASSWORD_SEP}{VALUE}",
        "pass",
        "pwd",
        "secret",
        "key",
        "token",
        group=KEY_VALUE,
    ),
    # "my password is swordfish", "the db passcode was 'x y'"
    _rule(
        "password",
        rf"{WORD_EDGE}(?i:password|passwd|passcode|passphrase)[ \t]+(?i:is|was)(?:[ \t]*:)?[ "
        rf"\t]+{_PROSE_VALUE}",
        "pass",
        group=KEY_VALUE,
    ),
    # Chinese values must be ASCII tokens, so "密码要定期更换" and "密码是什么" stay as they are.
    _rule("password", rf"(?:密码|口令|密碼)(?:{ZH_SEP}){VALUE}", "密", "口令", group=KEY_VALUE),
    _rule(
        "api_key",
        rf"(?:{WORD_EDGE}(?i:key|token|secret)s?{_LOOSE_SEP}|(?:密钥|秘钥|令牌)(?:{_LOOSE_SEP})?)"
        rf"[\"']?(?P<v>{_HIGH_ENTROPY})",
        "key",
        "token",
        "secret",
        "密钥",
        "秘钥",
        "令牌",
        group=KEY_VALUE,
    ),
)
