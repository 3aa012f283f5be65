"""A labelled corpus for the redaction rules (issue 10 item 6), built at runtime.

Secrets: ≥ 5 literals for each declared family, written from the providers' documented token formats
(prefix, alphabet, length). Every literal is *fake*: bodies come from a seeded generator and carry
`FAKE`/`EXAMPLE`/`dead…beef` where the alphabet allows; prefixes are joined from parts at runtime, so
the repository holds no string that a push-protection scanner would take for a live credential.
Each literal is measured in several contexts: as written, inside a codex-style JSON event (escaped
newlines and quotes) and, for distinctive prefixes, glued to a preceding word character.

Benign look-alikes: git SHAs, UUIDs, digests, paths, versions, model settings, code that *names* a
secret, URLs without credentials, command lines with `-p` that is not a password.

`score()` reports recall per family and the false-positive rate; `bench/secret_coverage.py` prints
it and `tests/cloud/test_secret_coverage.py` enforces recall ≥ 99 % per family and FP ≤ 2 %.
"""

from __future__ import annotations

import base64
import json
import random
import string
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from autopatch_j.cloud.redaction import REDACTED, redact

_rng = random.Random(20261201)
ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = string.ascii_letters + string.digits + "+/"
URLSAFE = string.ascii_letters + string.digits + "_-"


def j(*parts: str) -> str:
    """Join prefix parts (kept apart in the source on purpose)."""
    return "".join(parts)


def body(n: int, alphabet: str = ALNUM, marker: str = "FAKE") -> str:
    """`n` characters: a fake marker (when the alphabet has its letters), then seeded random ones."""
    mark = marker if all(c in alphabet for c in marker) and n > len(marker) + 4 else ""
    return mark + "".join(_rng.choice(alphabet) for _ in range(n - len(mark)))


def hexfake(n: int) -> str:
    return ("deadbeef" + "".join(_rng.choice(HEX) for _ in range(n)))[:n]


@dataclass(frozen=True)
class Case:
    family: str
    text: str  # the line as an agent would print it
    secret: str  # what must disappear


@dataclass(frozen=True)
class Family:
    name: str
    make: Callable[[], tuple[str, str]]  # -> (text, secret)
    glue: bool = False  # distinctive prefix: also measured glued to a word character
    count: int = 5


def plain(template: str, make_secret: Callable[[], str]) -> Callable[[], tuple[str, str]]:
    def make() -> tuple[str, str]:
        secret = make_secret()
        return template.format(s=secret), secret

    return make


def pem(kind: str) -> Callable[[], tuple[str, str]]:
    def make() -> tuple[str, str]:
        lines = [body(64, B64, "FAKEKEY") for _ in range(4)]
        block = "\n".join([f"-----BEGIN {kind}-----", *lines, f"-----END {kind}-----"])
        return f"key file:\n{block}\n", "\n".join(lines)

    return make


def jwt() -> str:
    def seg(obj: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")

    return ".".join([seg({"alg": "HS256", "typ": "JWT"}), seg({"sub": body(8), "name": "FAKE"}), body(43, URLSAFE)])


def _rotate(options: list[str]) -> Callable[[], str]:
    state = {"i": 0}

    def pick() -> str:
        state["i"] += 1
        return options[state["i"] % len(options)]

    return pick


_gh = _rotate(["p", "o", "u", "s", "r"])
_slack = _rotate(["b", "p", "a", "o", "r"])
_stripe = _rotate(["sk_live_", "rk_live_", "sk_test_", "rk_test_"])
_gitlab = _rotate(["pat", "dt", "rt", "ptt", "cbt"])
_aws = _rotate(["AKIA", "ASIA", "ABIA", "ACCA"])
_url = _rotate(
    [
        "redis://:{pw}@cache.internal:6379/0",
        "amqp://guest:{pw}@mq.internal:5672/vhost",
        "postgresql://app:{pw}@db.internal:5432/app",
        "mongodb+srv://admin:{pw}@cluster0.example.net/db",
        "https://deploy:{pw}@git.example.com/repo.git",
    ]
)
_cli = _rotate(
    [
        "mysql -u root -p{pw} shop",
        "mysqldump -h db -uadmin -p{pw} --all-databases",
        "psql --password {pw} -h db",
        "tool --password={pw} --verbose",
        "sshpass -p {pw} ssh deploy@host",
        "curl -u deploy:{pw} https://api.example.com",
    ]
)
_kv = _rotate(
    [
        "password={pw}",
        '{{"api_key": "{pw}"}}',
        "DB_PASSWORD: '{pw}'",
        "client_secret = {pw}",
        "export GITHUB_TOKEN={pw}",
        "pass={pw}",
        "aws_secret_access_key = {pw}",
    ]
)
_ctx = _rotate(
    [
        "SIGNING_KEY={pw}",
        "session_cookie: {pw}",
        "encryption_key = '{pw}'",
        'webhook_signature: "{pw}"',
        "app.salt={pw}",
    ]
)


def _with(template_pick: Callable[[], str], secret: Callable[[], str]) -> Callable[[], tuple[str, str]]:
    def make() -> tuple[str, str]:
        pw = secret()
        return template_pick().format(pw=pw), pw

    return make


def password() -> str:
    return body(14, ALNUM + "!#%^", "FAKEpw")


FAMILIES: tuple[Family, ...] = (
    Family("openai_project_key", plain("OPENAI_KEY {s}", lambda: j("sk-", "proj-") + body(120, URLSAFE)), glue=True),
    Family(
        "openai_legacy_key", plain("key: {s}", lambda: j("sk-") + body(20) + j("T3Blbk", "FJ") + body(20)), glue=True
    ),
    Family(
        "anthropic_key",
        plain("ANTHROPIC {s}", lambda: j("sk-", "ant-", "api03-") + body(93, URLSAFE) + "AA"),
        glue=True,
    ),
    Family("github_token", plain("token {s}", lambda: j("gh", _gh(), "_") + body(36)), glue=True),
    Family(
        "github_fine_grained_pat", plain("pat {s}", lambda: j("github_", "pat_") + body(22) + "_" + body(59)), glue=True
    ),
    Family("gitlab_token", plain("gitlab {s}", lambda: j("gl", _gitlab(), "-") + body(20, URLSAFE)), glue=True),
    Family(
        "slack_token", plain("slack {s}", lambda: j("xo", "x", _slack(), "-") + "1234567890-" + body(24)), glue=True
    ),
    Family(
        "slack_app_token",
        plain("app {s}", lambda: j("xa", "pp-") + "1-A0" + body(9, UPPER_DIGITS) + "-" + body(30)),
        glue=True,
    ),
    Family(
        "slack_webhook",
        plain("POST https://hooks." + j("sla", "ck.com/") + "{s}", lambda: "services/T0FAKE/B0FAKE/" + body(24)),
    ),
    Family(
        "discord_webhook",
        plain("POST https://discord.com/api/" + j("web", "hooks/") + "{s}", lambda: "12345678901/" + body(68, URLSAFE)),
    ),
    Family("aws_access_key_id", plain("id {s}", lambda: _aws() + body(16, UPPER_DIGITS, "FAKE")), glue=True),
    Family("aws_secret_next_to_key_id", plain("AKIA" + "FAKEEXAMPLE00KEY {s}", lambda: body(40, B64, "FAKEsecret"))),
    Family("google_api_key", plain("maps {s}", lambda: j("AI", "za") + body(35, URLSAFE)), glue=True),
    Family("google_oauth_client_secret", plain("secret {s}", lambda: j("GOC", "SPX-") + body(28, URLSAFE)), glue=True),
    Family("google_oauth_access_token", plain("{s}", lambda: j("ya", "29.") + body(120, URLSAFE)), glue=True),
    Family("stripe_key", plain("stripe {s}", lambda: j(_stripe()) + body(24)), glue=True),
    Family(
        "sendgrid_key", plain("mail {s}", lambda: j("S", "G.") + body(22, URLSAFE) + "." + body(43, URLSAFE)), glue=True
    ),
    Family("mailgun_key", plain("MAILGUN {s}", lambda: j("key", "-") + hexfake(32))),
    Family("mailchimp_key", plain("chimp {s}", lambda: hexfake(32) + "-us" + str(_rng.randint(1, 21)))),
    Family("twilio_api_key", plain("twilio {s}", lambda: j("S", "K") + hexfake(32))),
    Family("telegram_bot_token", plain("bot {s}", lambda: str(_rng.randint(10**8, 10**9)) + ":AA" + body(33, URLSAFE))),
    Family(
        "discord_bot_token",
        plain("discord {s}", lambda: "MT" + body(22, URLSAFE) + "." + body(6, URLSAFE) + "." + body(27, URLSAFE)),
    ),
    Family("square_token", plain("square {s}", lambda: j("sq0", "atp-") + body(22, URLSAFE)), glue=True),
    Family("shopify_token", plain("shop {s}", lambda: j("shp", "at_") + hexfake(32)), glue=True),
    Family(
        "azure_storage_account_key",
        plain(
            "DefaultEndpointsProtocol=https;AccountName=fake;AccountKey={s};EndpointSuffix=core.windows.net",
            lambda: body(86, B64, "FAKEkey") + "==",
        ),
    ),
    Family(
        "azure_sas_signature",
        plain(
            "https://fake.blob.core.windows.net/c/b?sv=2022-11-02&se=2026-12-31&sp=r&sig={s}",
            lambda: body(43, B64) + "%3D",
        ),
    ),
    Family("npm_token", plain("//registry.npmjs.org/ {s}", lambda: j("np", "m_") + body(36)), glue=True),
    Family("pypi_token", plain("pypi {s}", lambda: j("py", "pi-", "AgEIcHlwaS5vcmc") + body(70, URLSAFE)), glue=True),
    Family("huggingface_token", plain("hf {s}", lambda: j("h", "f_") + body(34, string.ascii_letters)), glue=True),
    Family("docker_hub_token", plain("docker {s}", lambda: j("dckr", "_pat_") + body(27, URLSAFE)), glue=True),
    Family("digitalocean_token", plain("do {s}", lambda: j("do", "p_v1_") + hexfake(64)), glue=True),
    Family("databricks_token", plain("dbx {s}", lambda: j("da", "pi") + hexfake(32))),
    Family("linear_api_key", plain("linear {s}", lambda: j("lin", "_api_") + body(40)), glue=True),
    Family(
        "postman_api_key", plain("postman {s}", lambda: j("PM", "AK-") + hexfake(24) + "-" + hexfake(34)), glue=True
    ),
    Family("grafana_token", plain("grafana {s}", lambda: j("gl", "sa_") + body(32) + "_" + hexfake(8)), glue=True),
    Family("vault_token", plain("VAULT {s}", lambda: j("hv", "s.") + body(90, URLSAFE)), glue=True),
    Family("age_secret_key", plain("age {s}", lambda: j("AGE-", "SECRET-KEY-1") + body(58, UPPER_DIGITS)), glue=True),
    Family("jwt", plain("Cookie: session={s}", jwt), glue=True),
    Family("pem_private_key", pem("RSA PRIVATE KEY")),
    Family("openssh_private_key", pem("OPENSSH PRIVATE KEY")),
    Family("pgp_private_key_block", pem("PGP PRIVATE KEY BLOCK")),
    Family("url_credentials", _with(_url, password)),
    Family("cli_password_flag", _with(_cli, password), count=6),
    Family("key_value_secret", _with(_kv, password), count=7),
    Family("authorization_header", plain("Authorization: Basic {s}", lambda: body(28, B64, "FAKEbasic"))),
    Family("bearer_token", plain("curl -H 'Bearer {s}'", lambda: body(40, URLSAFE, "FAKE") + "9")),
    Family("high_entropy_in_secret_context", _with(_ctx, lambda: body(32, ALNUM, "FAKE"))),
)


@dataclass
class Corpus:
    secrets: list[Case] = field(default_factory=list)
    benign: list[str] = field(default_factory=list)


def _contexts(family: Family, text: str) -> list[str]:
    contexts = [text, json.dumps({"type": "item.completed", "item": {"type": "agent_message", "text": "ok\n" + text}})]
    if family.glue:
        contexts.append("x" + text.split(" ", 1)[-1] if " " in text else "x" + text)
    return contexts


def benign_lines() -> list[str]:
    lines: list[str] = []
    lines += [f"commit {hexfake(40)[8:] + hexfake(8)}" for _ in range(15)]
    lines += [f"Merge: {hexfake(7)} {hexfake(7)}" for _ in range(3)]
    lines += [f"request id {uuid.UUID(int=_rng.getrandbits(128))}" for _ in range(10)]
    lines += [f"image@sha256:{hexfake(64)}" for _ in range(6)]
    lines += [f"md5 {hexfake(32)}  dist/app.tar.gz" for _ in range(4)]
    lines += [
        "max_tokens=4096",
        "max_tokens: 8192",
        "tokenizer: bert-base-uncased",
        "tokenizer_name=gpt2",
        "num_tokens = 1200",
        "token_count: 512",
        "tokens_used=93",
        "token_type: bearer",
        "password_min_length: 12",
        "require_password: true",
        "password: null",
        "api_key = os.environ['OPENAI_API_KEY']",
        "token = get_token()",
        "password: ${DB_PASSWORD}",
        "secret = settings.secret",
        "self.api_key = api_key",
        "PWD=/home/dev/project",
        "OLDPWD=/tmp",
        "keyboard: us",
        "primary_key: id",
        "sort_key=created_at",
        f"cache_key={hexfake(40)}",
        f"idempotency_key: {uuid.UUID(int=_rng.getrandbits(128))}",
        "Authorization header is required for this endpoint",
        "the bearer of this letter is a friend",
        "docker run -p 8080:80 nginx",
        "mkdir -p src/app/models",
        "ssh -p 2222 deploy@host.example.com",
        "docker run -u 1000:1000 alpine",
        "pip install scikit-learn==1.5.0",
        "risk-assessment-report-final",
        "task-queue-worker-02 started",
        "disk-usage-monitoring-service",
        "see https://example.com/docs/api?page=2&sort=asc",
        "postgresql://db.internal:5432/app",
        "git@github.com:example/repo.git",
        "contact: dev@example.com",
        "version 3.11.9",
        "v2.31.0-rc.1",
        "node v20.11.1",
        "Python 3.11.9 (main, Apr  2 2024)",
        "/usr/local/lib/python3.11/site-packages/fastapi/routing.py",
        "C:\\Users\\dev\\new\\table.txt",
        "src/autopatch_j/cloud/secret_rules.py:42",
        "./node_modules/.bin/tsc --noEmit",
        "~/.config/autopatch-j/settings.toml",
        "2026-12-01T01:41:12Z",
        "elapsed 12.345 s, 1,024 tasks",
        "color: #1e90ff; margin: 0 auto;",
        "SELECT id, name FROM users WHERE id = 42;",
        "AKIA is the prefix of an AWS key id",
        "the word skeleton and sk-short",
        "kubectl get secrets -n prod",
        "secretName: tls-cert",
        "GITHUB_TOKEN is read from the environment",
        "use `gh auth token` to print the token",
        "ghp_ tokens are classic personal access tokens",
        "model: gpt-4o-mini",
        "temperature=0.2 top_p=0.9",
        "batch_size: 32",
        "learning_rate=3e-4",
        "https://huggingface.co/bert-base-uncased",
        "npm install left-pad@1.3.0",
        "pytest tests/cloud -q -k sqlite",
        "EXPOSE 8000",
        "HEALTHCHECK CMD curl -f http://localhost:8000/health",
        "data:image/png;base64,iVBORw0KGgo=",
        "base64 -d payload.txt",
        "the session ended after 30 s",
        "auth: required",
        "key: value",
        "signature: verified",
        "passthrough: true",
        "bypass=false",
        "compass heading 270",
        "Bearer token required (see docs/auth.md)",
        "sha1: 2fd4e1c67a2d28fced849ee1bb76e7391b93eb12",
        "https://user@example.com/path",
        "export PATH=/usr/local/bin:$PATH",
        "ENV NODE_ENV=production",
        "aws s3 ls s3://fake-bucket/prefix/key.json",
        "apiVersion: v1",
        "password reset link sent to the user",
        "token: <your token here>",
        "api_key: YOUR_API_KEY",
        "the token expired; please log in again",
        "Traceback (most recent call last):",
        'File "/app/main.py", line 12, in <module>',
        "keyId: 7",
        "SKU-0000-1111",
        "isbn 978-3-16-148410-0",
        "phone +1-202-555-0123",
        "192.168.1.10:8080",
        "id_rsa.pub is the public half",
        "-----BEGIN PUBLIC KEY-----",
        "-----BEGIN CERTIFICATE-----",
        "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA (public key)",
        "author: Ada Lovelace <ada@example.com>",
        "sk-learn is not a package; scikit-learn is",
    ]
    return lines


def build() -> Corpus:
    corpus = Corpus()
    for family in FAMILIES:
        for _ in range(family.count):
            text, secret = family.make()
            for context in _contexts(family, text):
                corpus.secrets.append(Case(family.name, context, secret))
    corpus.benign = benign_lines()
    return corpus


def leaked(case: Case, out: str) -> bool:
    """Whether any 8-character piece of the secret survives redaction (pieces that also occur in the
    surrounding text do not count)."""
    around = case.text.replace(case.secret, " ")
    pieces = [p for line in case.secret.splitlines() for p in (line[i : i + 8] for i in range(max(1, len(line) - 7)))]
    return REDACTED not in out or any(len(p) == 8 and p in out and p not in around for p in pieces)


@dataclass
class Score:
    recall: dict[str, tuple[int, int]]  # family -> (caught, total)
    false_positives: list[str]
    benign_total: int
    literals: int

    @property
    def fp_rate(self) -> float:
        return len(self.false_positives) / self.benign_total


def score(corpus: Corpus | None = None) -> Score:
    corpus = corpus or build()
    recall: dict[str, tuple[int, int]] = {}
    for case in corpus.secrets:
        caught, total = recall.get(case.family, (0, 0))
        recall[case.family] = (caught + (not leaked(case, redact(case.text))), total + 1)
    false_positives = [line for line in corpus.benign if redact(line) != line]
    literals = len({case.secret for case in corpus.secrets})
    return Score(recall=recall, false_positives=false_positives, benign_total=len(corpus.benign), literals=literals)
