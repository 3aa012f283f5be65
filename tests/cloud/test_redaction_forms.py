"""Redaction learns the forms an independent probe found missing: secrets after Chinese labels,
URL-encoded `KEY%3Dvalue`, a secret wrapped across two lines, `sshpass -p '…'`, `.netrc`
`password …` and a 64-hex `ENCRYPTION_KEY=`; look-alikes stay as they are. Written from the
formats themselves (the held-out set is another author's)."""

from __future__ import annotations

import base64

import pytest

from autopatch_j.cloud.redaction import REDACTED, redact

# (form, text, the secret's pieces that must all disappear, text that must survive)
FORMS = [
    ("zh 密码是", "数据库密码是Hunter2024，别外传", ["Hunter2024"], "别外传"),
    ("zh 密码是 spaced", "测试环境的密码是 s3cr3t-Pa55 ，请保管", ["s3cr3t-Pa55"], "请保管"),
    ("zh 口令", "管理员口令 Tr0ub4dor&3 已更新", ["Tr0ub4dor&3"], "已更新"),
    ("zh 口令：", "口令：xK9#mQ2!vL", ["xK9#mQ2!vL"], "口令"),
    ("zh 密钥：", "API 密钥：a1B2c3D4e5F6g7H8", ["a1B2c3D4e5F6g7H8"], "API"),
    ("zh 密钥: ascii colon", "加密密钥: 9fK2mZ7qL0pX3wR8", ["9fK2mZ7qL0pX3wR8"], "加密"),
    ("zh 授权码为", "邮箱授权码为abcdEFGH1234ijkl。", ["abcdEFGH1234ijkl"], "邮箱"),
    ("zh token 是", "我的 token 是 tok_9f8e7d6c5b4a", ["tok_9f8e7d6c5b4a"], "我的"),
    ("zh 令牌", "访问令牌：Zx81Qw72Er63Ty54", ["Zx81Qw72Er63Ty54"], "访问"),
    ("zh 秘钥 full-width", "秘钥＝Kq2Lw3Me4Nr5", ["Kq2Lw3Me4Nr5"], "秘钥"),
    ("zh password 为", "password 为 Qwerty!234", ["Qwerty!234"], "password"),
    ("zh quoted", "密码是「Blue-Sky-42」", ["Blue-Sky-42"], "密码是"),
    ("url KEY%3Dvalue", "GET /cb?q=API_KEY%3Dk3y-V4lue-99%26x%3D1", ["k3y-V4lue-99"], "GET /cb"),
    ("url password%3D", "body=user%3Dbob%26password%3Dhunter2%21", ["hunter2"], "user%3Dbob"),
    ("url json", "data=%7B%22token%22%3A%22tK7-zz81-Qp%22%7D", ["tK7-zz81-Qp"], "data="),
    ("url twice", "next=%2Fcb%3Fsecret%253DS3cr3tV4lu3", ["S3cr3tV4lu3"], "next="),
    (
        "wrapped key=value",
        "export API_KEY=abcd1234EFGH5678ijkl\n9012MNOP3456qrst and more",
        ["abcd1234EFGH", "9012MNOP3456qrst"],
        "and more",
    ),
    (
        "wrapped github",
        "token ghp_0123456789abcd\nefghijABCDEFGHIJ012345 ok",
        ["ghp_0123456789abcd", "efghijABCDEFGHIJ012345"],
        "ok",
    ),
    ("wrapped quoted", "> password = x9Y8z7W6v5U4\n> t3S2r1Q0 end", ["x9Y8z7W6v5U4", "t3S2r1Q0"], "end"),
    ("wrapped json escape", '{"text": "secret=Ab12Cd34Ef56\\nGh78Ij90"}', ["Ab12Cd34Ef56", "Gh78Ij90"], "text"),
    ("sshpass single quotes", "sshpass -p 'My Pa55 word' ssh deploy@host", ["My Pa55 word"], "ssh deploy@host"),
    ("sshpass double quotes", 'sshpass -p "hunter2!" scp a b', ["hunter2!"], "scp a b"),
    ("netrc one line", "machine api.example.com login bob password s3cr3tNetrc", ["s3cr3tNetrc"], "login bob"),
    (
        "netrc lines",
        "machine git.example.com\n  login alice\n  password c4cd94da15ea\n",
        ["c4cd94da15ea"],
        "login alice",
    ),
    (
        "encryption key hex64",
        "ENCRYPTION_KEY=" + "3f" * 32,
        ["3f" * 32],
        "ENCRYPTION_KEY=",
    ),
    ("aes key hex32", "AES_KEY: " + "a1b2c3d4" * 4, ["a1b2c3d4" * 4], "AES_KEY"),
]


# shapes of a secret value the rules read structurally (wrapped tokens with symbols, credentials in
# form bodies, Basic credentials wherever written, key material in code and command lines)
_BASIC = base64.b64encode(b"deploy:Pa55w0rd!x").decode()
FORMS += [
    (
        "jwt wrapped on three lines",
        "cookie=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.Qm\n9.xK2pL7vW4zR8sT1uY6 ok",
        ["eyJzdWIiOiIxMjM0In0", "9.xK2pL7vW4zR8sT1uY6"],
        "ok",
    ),
    ("url password with @ and ?", "see https://ops:Zq8?@k2Lm@db.internal/x", ["Zq8", "k2Lm"], "db.internal"),
    ("form value with parens", "client_secret=Ab3(x+Y9)zQ#7w&scope=a", ["Ab3", "zQ#7w"], "scope=a"),
    ("basic in json", '{"name": "Authorization", "value": "Basic ' + _BASIC + '"}', [_BASIC], "name"),
    ("basic after zh label", "授权码：Basic " + _BASIC + "（账号密码）", [_BASIC], "账号密码"),
    ("sshpass form-encoded", "cmd=sshpass+-p+Xy7%21abc9Q+ssh+host", ["Xy7%21abc9Q", "abc9Q"], "cmd="),
    ("wrapped with symbols", "sshpass -p 9Qw=^!\nZ8m1kPq rsync -a", ["9Qw=^!", "Z8m1kPq"], "rsync"),
    ("netrc form-encoded", "netrc=machine+h.dev+login+bot+password+Q%40z9%21Lm2&x=1", ["Q%40z9%21Lm2"], "x=1"),
    ("hex under a data key", '{"data_key_hex": "' + "5e" * 32 + '"}', ["5e" * 32], "data_key_hex"),
    ("openssl -K", "openssl enc -aes-256-cbc -K " + "7c" * 32 + " -in a", ["7c" * 32], "-in a"),
    ("hex literal in code", 'MASTER_KEY = bytes.fromhex("' + "9d" * 32 + '")', ["9d" * 32], "fromhex"),
    ("compound cli flag", "tool --access-key-secret Rt5yU8iO0pA2sD4f --region x", ["Rt5yU8iO0pA2sD4f"], "--region"),
    ("full-width separator", "AccessKeySecret：Ab3dEf6hIj9kLm2nOp5q 完", ["Ab3dEf6hIj9kLm2nOp5q"], "完"),
    ("short sk= key", "ak=AB12CD34 sk=q8Wm2Zx7Lp4Nv9Rt6Ys3 ok", ["q8Wm2Zx7Lp4Nv9Rt6Ys3"], "ok"),
]


def _fold(text: str, width: int) -> str:
    """`fold -w WIDTH`: the text cut into lines of exactly `width` characters."""
    return "\n".join(text[i : i + width] for i in range(0, len(text), width))


_EXPORTS = (
    "export ORDERS_API_SECRET_ID=Zk4mQ8rT2vW6yB1n; export ORDERS_API_SECRET_KEY=Hd7Lq3Xs9Vb5Nm1Pc8Rf4Tg2;"
    " kubectl rollout restart deploy/orders"
)
_PEM_BODY = "b3BlbnNzaC1rZXktdjEAAAAACmFlczI1Ni1jdHIAAAAGYmNyeXB0AAAAGAAAABD"
# shapes of a layer or a grammar: form encoding (`+` for a space), a fixed-column wrap that cuts a
# key's name, the secret written after a key id, an arrow after a Chinese label
FORMS += [
    (
        "form-encoded pem",
        "note=-----BEGIN+OPENSSH+PRIVATE+KEY-----%0A" + _PEM_BODY + "%2B%2F9x%0A-----END+OPENSSH+PRIVATE+KEY-----&v=1",
        [_PEM_BODY],
        "note=",
    ),
    (
        "form-encoded cli flag",
        "cmd=%24+tool+configure+--client-secret+Ab3dEf6hIj9kLm2nOp5q+--region+eu&v=1",
        ["Ab3dEf6hIj9kLm2nOp5q"],
        "v=1",
    ),
    ("key name cut at column 33", _fold(_EXPORTS, 33), ["Hd7Lq3Xs9Vb5Nm1Pc8Rf4Tg2"], "]\n; kubectl"),
    ("key name cut at column 35", _fold(_EXPORTS, 35), ["Hd7Lq3Xs9Vb5Nm1Pc8Rf4Tg2"], "rollout"),
    (
        "secret after an aliyun key id",
        'client = AcsClient("LTAI5tQm2Zx7Lp4Nv9Rt", "q8Wm2Zx7Lp4Nv9Rt6Ys3AbCdEf12", "cn-shanghai")',
        ["LTAI5tQm2Zx7Lp4Nv9Rt", "q8Wm2Zx7Lp4Nv9Rt6Ys3AbCdEf12"],
        "cn-shanghai",
    ),
    (
        "secret after a tencent key id",
        "cred = Credential('AKIDq8Wm2Zx7Lp4Nv9Rt6Ys3AbCd', 'Zq8Wm2Zx7Lp4Nv9Rt6Ys3AbCdEf12')",
        ["AKIDq8Wm2Zx7Lp4Nv9Rt6Ys3AbCd", "Zq8Wm2Zx7Lp4Nv9Rt6Ys3AbCdEf12"],
        "Credential(",
    ),
    ("zh label then an arrow", "运维说明：备用口令 -> Qm7xK2pL9v；勿外传", ["Qm7xK2pL9v"], "勿外传"),
    ("zh label then a unicode arrow", "新的访问密钥 → Zx81Qw72Er63，明天过期", ["Zx81Qw72Er63"], "明天过期"),
]


_PEM_LINES = [
    "MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQC7Qm2Zx7Lp4Nv9",
    "Rt6Ys3AbCdEf12Hd7Lq3Xs9Vb5Nm1Pc8Rf4Tg2Zk4mQ8rT2vW6yB1nq8Wm2Zx7Lp4",
]
_SA_JSON = (
    '{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\n'
    + "\\n".join(_PEM_LINES)
    + '\\n-----END PRIVATE KEY-----\\n", "client_email": "ci@proj-7.iam.gserviceaccount.com"}'
)
_CONNECTION = (
    '[deploy] exporting STORAGE_CONN="DefaultEndpointsProtocol=https;AccountName=stbuild7;'
    "AccountKey=Q8wm2Zx7Lp4Nv9Rt6Ys3AbCdEf12Hd7Lq3Xs9Vb5Nm1Pc8Rf4Tg2Zk4mQ8rT2vW6yB1nA==;"
    'EndpointSuffix=core.windows.net" for the upload'
)
# a wrap that cuts through JSON escapes and key names, a command's flag in an argv list, a login
# call, prose that says how to log in, Chinese labels by their parts and bracketed values
FORMS += [
    ("pem in json cut at column 60", _fold(_SA_JSON, 60), [line[8:30] for line in _PEM_LINES], "gserviceaccou"),
    ("connection string cut at column 47", _fold(_CONNECTION, 47), ["Q8wm2Zx7", "Nm1Pc8Rf4Tg2"], "upload"),
    ("connection string cut at column 31", _fold(_CONNECTION, 31), ["Q8wm2Zx7", "Nm1Pc8Rf4Tg2"], "upload"),
    (
        "secret value runs to the end of a long line",
        "[mail] relay smtp.example.net:587 login user=ci-bot@example.net MAIL_PASSWORD=qxrtwzvp\nhmkdsnbl -> 235 OK",
        ["qxrtwzvp", "hmkdsnbl"],
        "235 OK",
    ),
    (
        "a list item after a secret at the end of a long line stays",
        "[mail] relay smtp.example.net:587 login user=ci-bot@example.net MAIL_PASSWORD=Qx7rtwzvp9Lm\n- restart it",
        ["Qx7rtwzvp9Lm"],
        "\n- restart it",
    ),
    ("sshpass in an argv list", 'run(["sshpass", "-p", "Zq8^15Wm2Lp", "ssh", "h"])', ["Zq8^15Wm2Lp"], '"ssh"'),
    ("login call", 'smtp.login("ci-bot@example.net", "qxrtwzvphmkdsnbl")', ["qxrtwzvphmkdsnbl"], "ci-bot"),
    ("prose: log in with", "The runbook says to log in with `sunset7-Qp#4Lw` for now.", ["sunset7-Qp#4Lw"], "now"),
    ("prose: sign in using", "sign in using Vx9!rT2kLm as admin", ["Vx9!rT2kLm"], "as admin"),
    ("zh label then a corner quote", "数据库口令「Qm7xK2pL9vR4」", ["Qm7xK2pL9vR4"], "数据库"),
    ("zh label then a lenticular bracket", "临时密码【qxrtwzvphmkdsnbl】，明天失效", ["qxrtwzvphmkdsnbl"], "明天失效"),
    ("zh compound label", "部署好了，鉴权串：Zx81Qw72Er_Ty。", ["Zx81Qw72Er_Ty"], "部署好了"),
    ("zh compound label 认证密钥", "认证密钥为 Hd7Lq3Xs9Vb5", ["Hd7Lq3Xs9Vb5"], "认证"),
]


@pytest.mark.parametrize(("form", "text", "pieces", "kept"), FORMS, ids=[row[0] for row in FORMS])
def test_each_form_is_redacted(form: str, text: str, pieces: list[str], kept: str) -> None:
    out = redact(text)
    assert [p for p in pieces if p in out] == [], out
    assert REDACTED in out and kept in out
    assert redact(out) == out


LOOK_ALIKES = [
    "密码是必填项，长度至少 8 位",
    "请输入密码",
    "口令错误时会锁定账户",
    "密钥轮换周期为 90 天",
    "授权码为空时返回 400",
    "token 是 JWT 格式",
    "URL-encode spaces as %20 and = as %3D",
    "The password\nreset link expires in an hour",
    "commit 3f2a9c1d4e5b6a7980123456789abcdef0123456 fixed it",
    "CACHE_KEY_SHA256=" + "ab" * 32,
    "sshpass -p is insecure; prefer keys",
    "machine learning models are great",
    "sha256: " + "0f" * 32,
    "the api key\nis stored in Vault",
    # values that are no literal secret: placeholders, references, paths, settings, versions
    'curl -H "Authorization: Bearer <YOUR_TOKEN>" https://api.example.dev',
    "> Authorization: Bearer [REDACTED]",
    "Authorization: Basic <base64 of user:password>",
    "export API_KEY=\npython run.py",
    "env:\n  TOKEN: ${{ secrets.TOKEN }}",
    "PASSWORD: ${PW:?set PW}",
    "api_key: null\npassword: ~",
    "PASSWORD_MIN_LENGTH=12\nPASSWORD_REQUIRE_SYMBOL=true",
    '"jsonwebtoken": "^9.0.2"',
    "TOKEN_FILE=/run/secrets/token",
    "mysql://[user[:password]@]host[:port]",
    "machine <host> login <user> password <password>",
    "secretKeyRef:\n  name: creds",
    '令牌 = os.getenv("X_TOKEN")',
    # stand-ins and masked values
    "api_key: YOUR_API_KEY",
    "token=your-token-here",
    "SECRET=REPLACE_ME",
    "password: xxxxxxxx",
    'password="••••••"',
    "OPENAI_API_KEY=sk-proj-****************3xQa",
    "API_KEY=sk-abc...wxyz",
    "token：说明见下文",  # a key with a full-width colon, then prose
    # references in quotes, an .env block whose lines happen to share one width, arrows to prose
    'sshpass -p "$DEPLOY_PASS" ssh deploy@10.0.0.7 uptime',
    "sshpass -p '${SSH_PASSWORD}' scp a b:",
    _fold("export ORDERS_API_REGION=eu-central-1; export ORDERS_API_TOKEN_TTL=3600; kubectl rollout", 33),
    "TOKEN_TTL_SECONDS=360000\nSESSION_STORE=redis-main\nLOG_FORMAT=json-lines-v2\nDEBUG=false",
    "密码 -> 见运维手册第三节",
    "令牌 -> 自动续期",
    "token: xxxx-xxxx-xxxx-xxxx  # paste yours here",
    "API_KEY=XXXX_XXXX_XXXX",
    "smtp.login(user, password)",
    "log in with your GitHub account",
    "sign in using SSO as usual",
    "鉴权串：见配置中心",
    "认证方式为 OAuth2",
    'run(["sshpass", "-p", "$PASS", "ssh", "h"])',
    "[mail] relay smtp.example.net:587 login user=ci-bot@example.net MAIL_PASSWORD=\nnext line here",
]


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alikes_are_left_alone(text: str) -> None:
    assert redact(text) == text
