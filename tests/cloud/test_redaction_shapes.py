"""Redaction by shape (C-24): secrets introduced in prose, Chinese label grammar with a verb between
label and value, argv lists, Markdown tables, text hard-wrapped at a fixed column; placeholders and
identifiers that are no secret come back unchanged. The cases are written from the shapes, not from
any held-out set; a Hypothesis property generates each family in each form."""

from __future__ import annotations

import json
import string
from urllib.parse import quote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autopatch_j.cloud.redaction import REDACTED, redact

# (shape, text, pieces that must all disappear, text that must survive)
SHAPES = [
    # secrets introduced in prose
    ("prose en short", "ok, password is hunter2 for now", ["hunter2"], "for now"),
    ("prose en is", "fyi the prod db password is hunter2-Xq9! so be careful", ["hunter2-Xq9!"], "be careful"),
    ("prose en for", "my token for staging is Tq84kLm2Pz91, rotate it monthly", ["Tq84kLm2Pz91"], "rotate it"),
    ("prose en set to", "The admin passphrase was set to Orange#Kite77 yesterday.", ["Orange#Kite77"], "yesterday"),
    ("prose en api key", "Our API key for the sandbox is now 7fJq2mXw9LpZ4.", ["7fJq2mXw9LpZ4"], "sandbox"),
    ("prose zh 用这个密码登录", "用这个密码登录：Mq3!xT8w，然后改掉", ["Mq3!xT8w"], "然后改掉"),
    ("prose zh 口令是", "测试账号的口令是 ab12CD34ef 记得保密", ["ab12CD34ef"], "记得保密"),
    ("zh verb 改成", "我把数据库密码改成了 Lq7#vN2pW0 。", ["Lq7#vN2pW0"], "数据库"),
    ("zh verb 更新为", "新的令牌已更新为：tk_7Hs9Kd2Lm4Pq", ["tk_7Hs9Kd2Lm4Pq"], "新的令牌"),
    ("zh verb 设为", "把 API 密钥设为 4fG7hJ2kL9mN3pQ6 即可", ["4fG7hJ2kL9mN3pQ6"], "即可"),
    ("zh 凭证 quoted", "凭据为 'Zx9!Cv8@Bn7' （测试用）", ["Zx9!Cv8@Bn7"], "测试用"),
    ("zh base64 value", "已将访问秘钥设置为 +Qm4/Zt7Lp2Wx9Rk5Vn8==，完成。", ["+Qm4/Zt7Lp2Wx9Rk5Vn8=="], "完成"),
    # argv lists (subprocess, JSON tool calls)
    ("argv --password", '["psql", "--password", "pG4#sLq9Zk", "-h", "db"]', ["pG4#sLq9Zk"], '"-h"'),
    ("argv json-escaped", '{"cmd": "[\\"login\\",\\"--token\\",\\"Hq7Lm2Xp9Zr4\\"]"}', ["Hq7Lm2Xp9Zr4"], "login"),
    ("argv redis-cli -a", 'run(["redis-cli", "-a", "Rk2mQp9Lx7Wz", "INFO"])', ["Rk2mQp9Lx7Wz"], "INFO"),
    ("redis-cli -a shell", "redis-cli -h cache -a Vb6Nm3Kq8Ps1 ping", ["Vb6Nm3Kq8Ps1"], "ping"),
    # Markdown tables
    ("table password", "| name | value |\n|---|---|\n| DB_PASSWORD | Xk82!nQpLz | prod |", ["Xk82!nQpLz"], "prod"),
    ("table key", "| SIGNING_KEY | `Wc4Rt7Yu1Io9Pa3Sd6` |", ["Wc4Rt7Yu1Io9Pa3Sd6"], "SIGNING_KEY"),
    # code and command shapes: subscript assignment, a call with a path, a printf argument
    ("subscript assignment", 'os.environ["PAY_SECRET"] = "c0ffee9e1d2b3a4f5e6d7c8b9a0f"', ["c0ffee9e1d2b"], "environ"),
    ("call with a path", 'let k = Keys { hmac_key: Vec::from("' + "4e" * 24 + '") };', ["4e" * 24], "hmac_key"),
    ("printf argument", "printf 'user=ci\\npassword=%s\\n' 'Qz8_pLm2Wx' > creds", ["Qz8_pLm2Wx"], "> creds"),
    ("label in brackets", "控制台里看到 Client Secret（密钥） Hk3mP9qL2xW7 了", ["Hk3mP9qL2xW7"], "控制台"),
    ("english key, zh verb", "我把 ApiKey 换成了 9e8d7c6b5a4f3e2d，还是 401", ["9e8d7c6b5a4f3e2d"], "还是 401"),
    ("setter call", 'pool.setPassword("Pq4Lm7Zx2Wv");', ["Pq4Lm7Zx2Wv"], "setPassword"),
    ("builder call", "Client.builder().apiKey('Bk3Nm8Qx5Lz1Rt').build()", ["Bk3Nm8Qx5Lz1Rt"], "build()"),
    ("ssh-keygen -N", "ssh-keygen -t ed25519 -N 'Kg7!pass-Phrase' -f key", ["Kg7!pass-Phrase"], "-f key"),
    ("htpasswd -b", "htpasswd -bc /etc/nginx/.htpasswd ops 0ps-Gat3!", ["0ps-Gat3!"], "ops"),
    ("echo into stdin", "echo 'Rg5Lm2Qp8Zr' | docker login -u ci --password-stdin", ["Rg5Lm2Qp8Zr"], "docker"),
    ("gpg --passphrase", "gpg --batch --passphrase 'Gq7Lm2Wp9' -d a.gpg", ["Gq7Lm2Wp9"], "a.gpg"),
    ("use … as the password", "just use `Ux8!Lm2Qp` as the root password", ["Ux8!Lm2Qp"], "root"),
    ("set … to", "I reset the staging api key to 'Rs9Lm2Qp9Zr4'.", ["Rs9Lm2Qp9Zr4"], "staging"),
    ("zh label with an aside", "新的访问令牌（Access Token）为 At7Lm2Qp9Zr4Wv", ["At7Lm2Qp9Zr4Wv"], "新的"),
    ("zh URL-encoded UTF-8", "q=%E5%AF%86%E7%A0%81%E6%98%AF%20Zh8%21Lm2Qp9", ["Zh8%21Lm2Qp9"], "q="),
    ("aliyun key id", "用的是 LTAI5tFk8Zq2Xw9Vm3Rn7Yp4 这个子账号", ["LTAI5tFk8Zq2Xw9Vm3Rn7Yp4"], "子账号"),
    ("tencent secret id", "got AKIDm3Zq8Xw2Lp5Nv7Rt9Yb6Cd4Ef1 in the log", ["AKIDm3Zq8Xw2Lp5Nv7Rt9Yb6Cd4Ef1"], "log"),
    ("key name, space", "aws configure set aws_secret_access_key Wq8+Lm2/Zp5Nv7Rt9Wy3Ab6Cd4", ["Wq8+Lm2/Zp5"], "aws"),
    ("wrapped after a prefix", "STRIPE_KEY: 'sk_live_Q\n7wZr9Lm2Xp5Kv8N'", ["sk_live_Q", "7wZr9Lm2Xp5Kv8N"], "STRIPE"),
    ("wrapped before a symbol", "DB_PASSWORD=7qT*9xw2\n^Kp%m@ and restart", ["7qT*9xw2", "^Kp%m@"], "restart"),
    ("wrapped url password", "dsn='mysql://ro:Zk-QwPL\nVx_7mR.s@db-2.internal:3306/x'", ["Zk-QwPL", "Vx_7mR.s"], "dsn"),
    ("zh English key, connector", "client_secret 为：Cs5Lm8Qx2Zp7", ["Cs5Lm8Qx2Zp7"], "client_secret"),
    ("HTML entities", "&lt;p&gt;password&#61;&quot;Ht5Lm8Qx2Zp&quot; ok", ["Ht5Lm8Qx2Zp"], " ok"),
    ("yaml block scalar", "db:\n  password: |\n    Yb6Lm2Qx9Zp\n  host: x", ["Yb6Lm2Qx9Zp"], "host: x"),
    ("triple-quoted", 'DB_PASSWORD = """Tq3Lm8Zx2Wp"""', ["Tq3Lm8Zx2Wp"], "DB_PASSWORD"),
    ("prefixed literal", "signing_secret = rb'Pb5Lm2Qx8Zw'", ["Pb5Lm2Qx8Zw"], "signing_secret"),
    ("xml element", "<db><password>Xe4Lm9Qz2Wp</password></db>", ["Xe4Lm9Qz2Wp"], "</db>"),
    (".NET appSettings", '<add key="StripeApiKey" value="Na7Lm2Qx9Zp" />', ["Na7Lm2Qx9Zp"], "StripeApiKey"),
    ("name then value call", "os.environ.setdefault('SERVICE_TOKEN', 'Sd8Lm2Qx5Zp')", ["Sd8Lm2Qx5Zp"], "setdefault"),
    ("mysql -p quoted", "mysql -uroot -p'My8!Lm2Qx' app", ["My8!Lm2Qx"], "app"),
    ("zh label glued", "登陆密码Wm4xQ8zL2pK7，别外传", ["Wm4xQ8zL2pK7"], "别外传"),
    ("zh value on the next line", "测试账号的密钥如下：\nKt5Lq9Wz3Xm8\n用完删除", ["Kt5Lq9Wz3Xm8"], "用完删除"),
    ("zh English key run", "AppSecretKey 是 Se4Lm8Qx2Zp6", ["Se4Lm8Qx2Zp6"], "AppSecretKey"),
    ("zh credential pair", "账号/密码：deploy / Dp3!xQ8zLm", ["Dp3!xQ8zLm"], "deploy"),
    ("en credential pair", "user/pass: ops/0ps-Qz8Lm", ["0ps-Qz8Lm"], "user/pass"),
    ("word then value", "login as admin, root password Rz4Lm8Qx2Wp then sudo", ["Rz4Lm8Qx2Wp"], "then sudo"),
    ("word then backquoted", "use the secret key `Sk3Lm9Qx7Wz` for signing", ["Sk3Lm9Qx7Wz"], "signing"),
    ("api key with a space", "Your new API key: Ak5Lq2Wz8Xm3", ["Ak5Lq2Wz8Xm3"], "Your new"),
    ("passphrase =", "passphrase = Pp7Lm2Qx9Wz", ["Pp7Lm2Qx9Wz"], "passphrase"),
    ("echoed literal", "AUTH_TOKEN=`echo Tq9Lm2Wx8Zp4Kv7Rn3Ys6`", ["Tq9Lm2Wx8Zp4Kv7Rn3Ys6"], "AUTH_TOKEN"),
    # hard-wrapped at a fixed column (the second half alone does not look random)
    (
        "fixed column wrap",
        "kubectl create secret generic \nweb --from-literal=password=Rk\n8qe*xa! --namespace shop --dry\n-run=client",
        ["password=Rk\n", "8qe*xa!"],
        "--namespace",
    ),
    (
        "fixed column wrap in a table",
        "| OSS_ACCESS_SECRET | Ab3dE7fGh2JkL9\nmnopqrs | rotated on 2026-01-02 | te\nam |",
        ["Ab3dE7fGh2JkL9", "mnopqrs"],
        "rotated",
    ),
    (
        "fixed column wrap before a digit and colon",
        "INFO boot: loaded settings from env; bot_token=88123456\n"
        "7:Ab3Cd4Ef5Gh6Ij7Kl8Mn9Op0Qr1St2Uv3Wx4Y retries=3 timeo\n"
        "ut=90s",
        ["7:Ab3Cd4Ef5Gh6Ij7Kl8Mn9Op0Qr1", "88123456\n"],
        "retries",
    ),
]

# placeholders and identifiers: never secrets, come back unchanged (docs/cloud.md, C-24)
UNCHANGED = [
    "AWS_SECRET_ACCESS_KEY=changeme",
    "DB_PASSWORD=change_me",
    "api_key = <token>",
    "TOKEN=${VAR}",
    'password = os.environ["DB_PASSWORD"]',
    "secret: xxxxxxxxxxxx",
    "token: {{ vault_token }}",
    "password: [REDACTED]",
    "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "key id AKIAXXXXXXXXXXXXXXXX (masked)",
    "OPENAI_API_KEY=sk-XXXXXXXXXXXXXXXXXXXXXXXX",
    "api_key: dummy",
    "password=example",
    "SERVICE_CREDENTIALS=/var/run/app/creds.json",
    "session_id=sess_01J8ZK4M2Q7XW3RT9V5N6B0CDE",
    "request_id: req_7Hk2Lm9Qp4Zx8Wv3",
    "commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
    "id: 123e4567-e89b-12d3-a456-426614174000",
    "sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
    "trace_id=4bf92f3577b34da6a3ce929d0e0e4736",
    "traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    "max_tokens=4096",
    "tokenizer: cl100k_base",
    "npm run task-runner && disk-usage",
    "the token is expired, the password is required",
    "the token is read-only",
    "令牌有效期为 3600 秒",
    "密码长度为 8-16 位",
    "密码策略为 strict-mode",
    "password_min_length: 12\npassword_max_length: 64",
    "const SESSION_TOKEN_TTL_SECONDS = 86400000;",
    "def rotate(api_key: str, token: Optional[str] = None) -> None:",
    "password: REDACTED\ntoken: ***FILTERED***",
    "api_key_header_name: X-API-Key",
    "TOKEN_ENDPOINT=https://auth.example.com/oauth2/token",
    "password: !vault |",
    "password = getpass.getpass('Password: ')",
    "const apiKey = process.env.OPENAI_API_KEY;",
    "next_page_token=CAEQAA",
    "api_token my-service-token-2026-prod",
    "TOKEN=`cat /run/secrets/token`",
    "password: {{ .Values.db.password | b64enc | quote }}",
    "db_password = <sensitive>",
    "cat password.txt | docker login --password-stdin -u bot",
    "密码：<你的密码>",
    "私钥RSA2048加密，密码reset链接已发送",
    "the password reset flow, token EXPIRED_TOKEN_ERROR",
    "pin_memory: true",
    "got `The access token is wrong` from the job",
    "ExternalSecret 指向的是 `staging/orders-api`",
    "每个服务的 secret 命名为 services/<service>/<purpose>",
    "toolchain pin：rust-toolchain.toml 先固定",
    'curl -H "DD-API-KEY: $DD_API_KEY" https://api.datadoghq.com',
    "const token = useCookie<string | null>('auth')",
    'log.warning("token", "parse failed")',
    '<add key="ApiKeyHeader" value="X-Api-Key" />',
]


@pytest.mark.parametrize(("shape", "text", "pieces", "kept"), SHAPES, ids=[row[0] for row in SHAPES])
def test_each_shape_is_redacted(shape: str, text: str, pieces: list[str], kept: str) -> None:
    out = redact(text)
    assert [p for p in pieces if p in out] == [], out
    assert REDACTED in out and kept in out
    assert redact(out) == out


@pytest.mark.parametrize("text", UNCHANGED)
def test_placeholders_and_identifiers_come_back_unchanged(text: str) -> None:
    assert redact(text) == text


# --- property: any generated secret of each family, in each form, is redacted ---------------------

ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits


def _text(alphabet: str, size: int) -> st.SearchStrategy[str]:
    return st.text(alphabet=alphabet, min_size=size, max_size=size)


def _random_enough(value: str) -> bool:
    """A generated body that reads as random (a digit and a letter), as real keys do."""
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


_PASSWORD = st.text(alphabet=ALNUM + "!#$%*+-@^", min_size=10, max_size=20).filter(
    lambda v: any(c.isdigit() for c in v) and any(c.isupper() for c in v) and any(c.islower() for c in v)
)

# family -> (strategy of the secret, the key or label it is written under)
FAMILIES: dict[str, tuple[st.SearchStrategy[str], str]] = {
    "github": (_text(ALNUM, 36).filter(_random_enough).map(lambda b: "ghp_" + b), "GITHUB_TOKEN"),
    "aws_key_id": (_text(UPPER_DIGITS, 16).filter(_random_enough).map(lambda b: "AKIA" + b), "AWS_ACCESS_KEY_ID"),
    "openai": (_text(ALNUM, 40).filter(_random_enough).map(lambda b: "sk-proj-" + b), "OPENAI_API_KEY"),
    "stripe": (_text(ALNUM, 24).filter(_random_enough).map(lambda b: "sk_live_" + b), "STRIPE_SECRET"),
    "slack": (_text(ALNUM, 24).filter(_random_enough).map(lambda b: "xoxb-1234567890-" + b), "SLACK_TOKEN"),
    "google": (_text(ALNUM + "_-", 35).filter(_random_enough).map(lambda b: "AIza" + b), "GOOGLE_API_KEY"),
    "hex_key": (_text("0123456789abcdef", 64).filter(_random_enough), "ENCRYPTION_KEY"),
    "password": (_PASSWORD, "DB_PASSWORD"),
}
ZH_LABELS = ["密码", "口令", "密钥", "秘钥", "令牌", "授权码", "凭证", "凭据", "token "]
ZH_GRAMMAR = ["是", "为", "：", "=", " 是 ", "设置为 "]


def _pieces(secret: str, text: str, width: int) -> list[str]:
    """The parts of `secret` between the line breaks of `text` wrapped at `width` (each ≥ 6 chars)."""
    lines = [text[i : i + width] for i in range(0, len(text), width)]
    start = text.index(secret)
    parts, pos = [], 0
    for line in lines:
        lo, hi = max(pos, start), min(pos + len(line), start + len(secret))
        if hi - lo >= 6:
            parts.append(text[lo:hi])
        pos += len(line)
    return parts


@st.composite
def secret_in_form(draw: st.DrawFn) -> tuple[str, str, list[str]]:
    family = draw(st.sampled_from(sorted(FAMILIES)))
    value_strategy, key = FAMILIES[family]
    secret = draw(value_strategy)
    forms = ["plain", "json_escaped", "url_encoded", "wrapped", "quoted", "zh_labelled", "zh_url_encoded"]
    form = draw(st.sampled_from(forms))
    line = f"{key}={secret}"
    if form == "plain":
        return form, f"set {line} then restart the service", [secret]
    if form == "json_escaped":
        once = json.dumps({"cmd": "export", "output": f"ok\n{line}\n\tdone/"})
        return form, once if draw(st.booleans()) else json.dumps({"event": once}), [secret]
    if form == "url_encoded":
        once = quote(f"{line}&next=/home", safe="")
        return form, "GET /cb?data=" + (once if draw(st.booleans()) else quote(once, safe="")), [secret]
    if form == "quoted":
        q = draw(st.sampled_from(['"', "'", "`"]))
        return form, f"{key.lower()}: {q}{secret}{q}  # from the vault", [secret]
    if form in ("zh_labelled", "zh_url_encoded"):
        label, grammar = draw(st.sampled_from(ZH_LABELS)), draw(st.sampled_from(ZH_GRAMMAR))
        text = f"已配置，{label}{grammar}{secret} ，请勿外传。"
        if form == "zh_labelled":
            return form, text, [secret]
        return form, "msg=" + quote(text, safe=""), [quote(secret, safe="")]
    # wrapped at a fixed column that falls inside the secret, leaving ≥ 6 characters (or half a short one) each side
    text = f"Deploy note: export {line} and run the migration before the release window"
    start = text.index(secret)
    edge = min(6, len(secret) // 2)
    cut = draw(st.integers(min_value=start + edge, max_value=start + len(secret) - edge))
    width = cut  # the first line break falls at `cut`
    folded = "\n".join(text[i : i + width] for i in range(0, len(text), width))
    return form, folded, _pieces(secret, text, width)


@settings(max_examples=400, derandomize=True, database=None, deadline=None)
@given(secret_in_form())
def test_any_generated_secret_in_any_form_is_redacted(case: tuple[str, str, list[str]]) -> None:
    form, text, pieces = case
    out = redact(text)
    assert [p for p in pieces if p in out] == [], (form, text, out)


PLACEHOLDER = st.one_of(
    st.text(alphabet=string.ascii_uppercase + "_", min_size=3, max_size=12).map(lambda w: "YOUR_" + w),
    st.from_regex(r"<[a-z][a-z _-]{2,15}>", fullmatch=True),
    st.from_regex(r"\$\{[A-Z][A-Z0-9_]{2,15}\}", fullmatch=True),
    st.from_regex(r"\{\{ ?[a-z][a-z_.]{2,15} ?\}\}", fullmatch=True),
    st.from_regex(r"os\.environ\[\"[A-Z][A-Z0-9_]{2,15}\"\]", fullmatch=True),
    st.integers(min_value=4, max_value=40).map(lambda n: "x" * n),
    st.just(REDACTED),
    st.sampled_from(["changeme", "CHANGE_ME", "replace-me", "dummy", "example", "placeholder", "TODO"]),
)
KEYS = st.sampled_from(["api_key", "PASSWORD", "client_secret", "token", "AUTH_TOKEN", "密码", "令牌"])


@settings(max_examples=300, derandomize=True, database=None, deadline=None)
@given(key=KEYS, sep=st.sampled_from(["=", ": ", " = ", "：", "是"]), value=PLACEHOLDER)
def test_any_placeholder_is_left_alone(key: str, sep: str, value: str) -> None:
    text = f"{key}{sep}{value}\n"
    assert redact(text) == text
