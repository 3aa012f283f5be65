"""Redaction reads more classes of secret by their structure, not by a provider's prefix: a webhook
URL whose path after the hook segment is the credential, a login written as `user/password@host`
without a scheme (an Oracle connect string), a key run into a fused word that ends in a secret's word
(`requirepass`, `SSHPASS`, `-deststorepass`), a pre-shared key (`psk=`), the id of a key written
beside it (`private_key_id`, `密钥 ID`), secrets printed in groups (a TOTP setup key in groups of
four, a list of recovery codes) and `curl -u` with a quoted pair. Look-alikes that must come back
unchanged: a key of another kind (`PublicKey`, `object_key`), a publishable key, a tag, a value a
paragraph after a password word, a method called with a literal. Redacting twice changes nothing.
Written from the formats themselves, not copied from a set."""

from __future__ import annotations

import pytest

from autopatch_j.cloud.redaction import redact

# (class, text, the secret's pieces that must all disappear, text that must survive)
SECRETS = [
    (
        "webhook path after the hook segment",
        "curl -X POST https://hooks.chat.example.net/webhookb2/IncomingWebhook/"
        "4be1c07d93a25f6e8d1c0b7a9e3f5d21/Vq3Xz8Lm2Rt -d @msg.json",
        ["4be1c07d93a25f6e8d1c0b7a9e3f5d21"],
        "-d @msg.json",
    ),
    (
        "bot hook with a uuid token",
        "BOT_HOOK=https://open.im.example.cn/open-apis/bot/v2/hook/9d3e6c1a-44b2-4f7e-a0c5-2b8e71f3d6a9\nLOG=info",
        ["9d3e6c1a-44b2-4f7e-a0c5-2b8e71f3d6a9"],
        "LOG=info",
    ),
    (
        "user/password@host without a scheme",
        "sqlplus report/Gx7!pQ2vLz9Ke@//db-7.internal:1521/SALESPDB",
        ["Gx7!pQ2vLz9Ke"],
        "db-7.internal:1521",
    ),
    (
        "user/password@host:port/service",
        'conn = "etl/Wm4#Tz8qLr2Vx@orders-db.example.org:1521/ORDERS"',
        ["Wm4#Tz8qLr2Vx"],
        "orders-db.example.org",
    ),
    ("fused key ending in pass, space", "bind 0.0.0.0\nrequirepass Ht5Kq8Zm2Xw7Lp3Rv\n", ["Ht5Kq8Zm2Xw7Lp3Rv"], "bind"),
    (
        "fused flag ending in pass",
        "keytool -importkeystore -srckeystore a.p12 -deststorepass Qw8~Zr2Lm5Kt9 -noprompt",
        ["Qw8~Zr2Lm5Kt9"],
        "-noprompt",
    ),
    (
        "fused key in a query string",
        "GET /cb?sshpass=.7uXk2Lq%21m9Vz&state=ok HTTP/1.1",
        ["7uXk2Lq%21m9Vz"],
        "state=ok",
    ),
    (
        "pre-shared key",
        'network={\n    ssid="Lab-5G"\n    psk="Zq4!Lm8vTx2#Kp"\n}',
        ["Zq4!Lm8vTx2#Kp"],
        'ssid="Lab-5G"',
    ),
    (
        "a key's id beside its key",
        '{"type": "service_account", "private_key_id": "8c41f0d27b9e3a56c1d8e4f7a2b0c9d3e6f1a5b8", "x": 1}',
        ["8c41f0d27b9e3a56c1d8e4f7a2b0c9d3e6f1a5b8"],
        "service_account",
    ),
    (
        "a key's id after a Chinese label",
        "密钥 ID 为 5e9a2c7f10b84d36a1c9e0f7b3d5a8c2e4f6b1d9，私钥另发",
        ["5e9a2c7f10b84d36a1c9e0f7b3d5a8c2e4f6b1d9"],
        "私钥另发",
    ),
    (
        "setup key in groups of four",
        "Can't scan the code? Enter this setup key:\nk7qm 2xzp r4tw yb6n 3hjd v5ce q2lf 7sop\nThen confirm.",
        ["k7qm 2xzp r4tw yb6n", "3hjd v5ce q2lf 7sop"],
        "Then confirm.",
    ),
    (
        "recovery codes, one a line",
        "Your recovery codes:\nq7k2m-x9t4z\nr3w8p-b6n1c\nj5d0f-h2v7s\nl4y9g-e8a3u\nKeep them safe.",
        ["q7k2m-x9t4z", "r3w8p-b6n1c", "j5d0f-h2v7s", "l4y9g-e8a3u"],
        "Keep them safe.",
    ),
    (
        "recovery codes on one line",
        "恢复码：m2x7q-k9r4t b8n3w-c6p1z f0h5j-s7d2v u9e4l-a3g8y，已发邮箱",
        ["m2x7q-k9r4t", "b8n3w-c6p1z", "f0h5j-s7d2v", "u9e4l-a3g8y"],
        "已发邮箱",
    ),
    (
        "a password hash in crypt format",
        "cat .htpasswd\nops:$2y$10$Qm3vLx8Tz2Kp9Rw4Hy6NcO1bGf5Jd7Se0Ua2Xi4Lo6Pq8Rt3Vw5Y\n",
        ["Qm3vLx8Tz2Kp9Rw4Hy6NcO1bGf5Jd7Se0Ua2Xi4Lo6Pq8Rt3Vw5Y"],
        "cat .htpasswd",
    ),
    (
        "user:password@tcp(host)",
        'sql.Open("mysql", "app:Zk8~Qw2xLm5Tn@tcp(db.internal:3306)/shop?parseTime=true")',
        ["Zk8~Qw2xLm5Tn"],
        "db.internal:3306",
    ),
    (
        "recovery codes, some barely mixed",
        "backup codes: 3tkv6-7xwq8 kdrm9-pnzvo ouc2e-cpqoo qcwpx-bkb5h c4mrq-rdfy8 6xmok-fmwse",
        ["3tkv6-7xwq8", "kdrm9-pnzvo", "6xmok-fmwse"],
        "backup codes",
    ),
    (
        "curl -u with a quoted pair",
        'curl https://api.example.com/v1/oauth2/token -u "Bq7ZxLm2Tk9Vr4Np:Wd8!Hs3Jy6Kc1Gf5" -d x=1',
        ["Wd8!Hs3Jy6Kc1Gf5"],
        "-d x=1",
    ),
    (
        "curl -u with a digit first",
        "curl -u ops:7=Kq!Zr2Lm5Xt https://repo.example.com/",
        ["7=Kq!Zr2Lm5Xt"],
        "https://repo",
    ),
]

LOOKALIKES = [
    ("webhook path that names an event", "POST https://ci.example.com/webhooks/github/push-events HTTP/1.1"),
    ("package at a version", "go install golang.org/x/tools/cmd/goimports@v0.24.0 && npm i @scope/pkg@1.2.3"),
    ("action at a tag", "uses: actions/setup-node@v4.0.2"),
    ("bypass flag", "run --bypass-cache --bypass=true"),
    (
        "public key beside its peer",
        "WireGuard peer: PublicKey = kQ3t8Zx2Lm7Vp4Nw9Rb5Hc1Yd6Fg0Se3Ua8Oi2Tk7L= AllowedIPs = 10.1.0.2/32",
    ),
    ("short commit list", "cherry-picked 3f2a9b1 8e7d6c5 1a2b3c4 9f8e7d6 onto release"),
    ("hexdump groups", "00000010  6f6d 6520 7465 7874 2061 6e64 2073 6f6d  ome text and som"),
    ("session id is no key id", "session_id=sess_01J8ZQ4K7M2N5P8R3T6V9W"),
    ("issue keys", "fixed in ABCD-1234 ABCD-1235 EFGH-2345 IJKL-3456 and WXYZ-9876"),
    ("shell positional arguments", 'echo "$1$2$3" && printf "%s" "$10$11"'),
    ("a key of another kind", "object_key=uploads/2026/11/30/7d1e9c2a-4b6f-4e0a-9c3d-2f8b1a6e5c4d.png"),
    ("a key of another kind, idempotency", "idempotency_key=order-20261130-000418"),
    ("a publishable key", "mapboxgl.accessToken = 'pk.eyJ1IjoiZGVtbyIsImEiOiJjazEyMyJ9.Qx7Lm2Zp9Rt4Vb8Kw3Nc6H';"),
    ("an etag in a json log", '{"stdout": "ETag: \\"5d41402abc4b2a76b9719d911017c592\\""}'),
    (
        "a commit after a paragraph naming a password",
        "Merge pull request #12 from acme/fix/password-reset-email\n\n"
        "9c1e4b7a2f5d8e3c6b0a1f4e7d2c5b8a9e3f6d1c refs/heads/main",
    ),
    ("a method called with a literal", 'token = token.rstrip(".?!？！、")'),
    ("curl -u with variables", 'curl -u "$API_USER:$API_PASS" https://api.example.com/v1/status'),
]

# texts the rules once read differently a second time (a call's default holding `[REDACTED]`, a
# `htpasswd` line with a second flag)
TWICE = [
    'API_TOKEN = os.environ.get("API_TOKEN", "Zq4Lm8vTx2Kp9Rw3Hy6N")',
    "htpasswd -b -B /etc/nginx/.htpasswd ops.bot 'Kp9!Rw3Hy6Nz'",
]


@pytest.mark.parametrize(("name", "text", "pieces", "kept"), SECRETS, ids=[s[0] for s in SECRETS])
def test_each_structure_of_secret_is_redacted(name: str, text: str, pieces: list[str], kept: str) -> None:
    out = redact(text)
    assert not [piece for piece in pieces if piece in out], out
    assert kept in out
    assert redact(out) == out


@pytest.mark.parametrize(("name", "text"), LOOKALIKES, ids=[s[0] for s in LOOKALIKES])
def test_each_lookalike_comes_back_unchanged(name: str, text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize("text", TWICE)
def test_redacting_twice_changes_nothing(text: str) -> None:
    once = redact(text)
    assert once != text
    assert redact(once) == once
