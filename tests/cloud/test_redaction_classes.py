"""Redaction reads the classes of secrets a leave-one-author-out run over the tuning sets still
missed, by structure rather than by example: a key named on the line above its value
(`- name: X` / `value: …`, `{"name": "X", "value": "…"}`), an English key before a Chinese
connector, a value holding `?`, a short flag glued to its value in an argv list, a Chinese dash or
bracket after a label, and wraps (a quoted block cut at a fixed column, a flag whose value starts on
the next line). Each has a look-alike that must come back unchanged. Written from the formats
themselves, not copied from a set."""

from __future__ import annotations

import pytest

from autopatch_j.cloud.redaction import redact

# (class, text, the secret's pieces that must all disappear, text that must survive)
SECRETS = [
    (
        "armored block naming a seed",
        "$ cat ~/.config/relay/agent.creds\n-----BEGIN AGENT SIGNING SEED-----\n"
        "SAQ7WZKD2M4XRTE6BNY3HPLC5VJG8FUQ2ZXWK7MD4TRE9NBYH3PLC6VJ\n------END AGENT SIGNING SEED------\n$ exit",
        ["SAQ7WZKD2M4XRTE6BNY3HPLC5VJG8FUQ2ZXWK7MD4TRE9NBYH3PLC6VJ"],
        "$ exit",
    ),
    (
        "name above value, yaml",
        "env:\n  - name: BILLING_API_TOKEN\n    value: 'q8Zr2LmX7vPk3Nw9Tt5Yb1Hc'\n"
        "  - name: LOG_LEVEL\n    value: info\n",
        ["q8Zr2LmX7vPk3Nw9Tt5Yb1Hc"],
        "LOG_LEVEL",
    ),
    (
        "name above value, json",
        '[\n  {\n    "name": "SENTRY_AUTH_TOKEN",\n    "value": "9f1c2e7a4b8d6f0e3a5c7b9d1f2e4a6c"\n  }\n]',
        ["9f1c2e7a4b8d6f0e3a5c7b9d1f2e4a6c"],
        "SENTRY_AUTH_TOKEN",
    ),
    ("key before 是", "后台 SESSIONID是 7hq2w9e4r8t1y6u3i0o5p7a2s，别外传", ["7hq2w9e4r8t1y6u3i0o5p7a2s"], "别外传"),
    ("value holding ?", "db.internal:5432:app:svc:Qz7?mK#2vL!p9", ["Qz7?mK#2vL!p9"], "db.internal:5432"),
    (
        "flag value holding ?",
        "docker login -u ci -p Wm4?Tz8@Lq2#Vx registry.example.com",
        ["Wm4?Tz8@Lq2#Vx"],
        "registry.example.com",
    ),
    ("glued short flag in argv", '["mysqladmin", "ping", "-uroot", "-pK7#mQ2.vLx9Rz"]', ["K7#mQ2.vLx9Rz"], "ping"),
    ("label then dash", "运维机器的登录口令——Xp4.Tq8zLm2Kw7——别转发", ["Xp4.Tq8zLm2Kw7"], "别转发"),
    (
        "fixed-column quote",
        "see the call below, it was cut at forty\n"
        "> columns by the pager before it was pas\n"
        "> ted: curl -u ACc0ffee11223344556677:8e\n"
        "> 3c1d2f9a7b6c5d4e3f2a1b0c9d8e7f6 -d x=1\n",
        ["8e", "3c1d2f9a7b6c5d4e3f2a1b0c9d8e7f6"],
        "curl -u",
    ),
    (
        "flag value on the next line",
        " 88  az storage blob list --account-name acme --account-key \n"
        "  Jq3Lm8Zt2Vx7Np4Rk9Wb5Hc1Yd6Fg0Se3Ua8Oi2Tk7Lm5Nz4Px9Qw1Er6Ty3UiOpAs\n"
        "  dF5gH7jK== -c backups\n",
        ["Jq3Lm8Zt2Vx7Np4Rk9Wb5Hc1Yd6Fg0Se3Ua8Oi2Tk7Lm5Nz4Px9Qw1Er6Ty3UiOpAs", "dF5gH7jK=="],
        "-c backups",
    ),
]

SECRETS += [
    (
        "wrap before a random name and =",
        "printenv | sort\nLANG=C.UTF-8\nSMTP_PASSWORD=9vQ!x2Lk@Hd\nTzWqPm4=Zr8\nTERM=xterm\n",
        ["9vQ!x2Lk@Hd", "TzWqPm4=Zr8"],
        "TERM=xterm",
    ),
    (
        "value in a table cell",
        "| field | value |\n|---|---|\n| api token | Tq8Lm2Vx7Np4Rk9Wb5Hc1Yd6Fg |\n| owner | ops |\n",
        ["Tq8Lm2Vx7Np4Rk9Wb5Hc1Yd6Fg"],
        "| owner | ops |",
    ),
    (
        "scheme word before the token",
        "env:\n  DEPLOY_TOKEN: Tok2 h7Kq+Zr2mX9/vPk3Nw9Tt5Yb1Hc8Lq4Ws6Ue0Ra==\nnext: step\n",
        ["h7Kq+Zr2mX9/vPk3Nw9Tt5Yb1Hc8Lq4Ws6Ue0Ra=="],
        "next: step",
    ),
    (
        "short key in a connection string",
        '"Server=tcp:db.corp.net,1433;Uid=svc_ro;Pwd=Kq7%vLx2Zt9m;Encrypt=yes;"',
        ["Kq7%vLx2Zt9m"],
        "Encrypt=yes",
    ),
    (
        "key id before its secret",
        'jaas.config=PlainLoginModule required username="K7QXW2MZ4PLR9TNB" password="Zt9mKq7vLx2Wn5Rb8Yc3Hd6Fg1Js4";',
        ["K7QXW2MZ4PLR9TNB", "Zt9mKq7vLx2Wn5Rb8Yc3Hd6Fg1Js4"],
        "PlainLoginModule",
    ),
    (
        "name glued to = before a quote",
        "export SSHPASS='Qm7#xZ!p2Lw^Rt'\nexport WIFI_PSK=\"Corvid7Harbor#Lime22\"\n./deploy.sh",
        ["Qm7#xZ!p2Lw^Rt", "Corvid7Harbor#Lime22"],
        "./deploy.sh",
    ),
    (
        "value written into a secret's file",
        "$ echo 'Tundra#Lantern4419' > ~/.vault_pass && ansible-playbook site.yml",
        ["Tundra#Lantern4419"],
        "ansible-playbook site.yml",
    ),
    (
        "codes listed under a label naming them",
        "Backup codes (use each once):\n\n7f3a91c2e4\nb05d6e8a13\n29c4f7e0ad\nd81b3a6f59\n\nStore them offline.",
        ["7f3a91c2e4", "b05d6e8a13", "29c4f7e0ad", "d81b3a6f59"],
        "Store them offline.",
    ),
    (
        "codes after a Chinese label",
        "恢复码：k3m9x2q7 p8w4z6r1 t5y2n8v3 h6j1c9b4 m2s7d5f8，请妥善保存",
        ["k3m9x2q7", "p8w4z6r1", "t5y2n8v3", "h6j1c9b4", "m2s7d5f8"],
        "请妥善保存",
    ),
]

LOOKALIKES = [
    (
        "armored public key and certificate",
        "-----BEGIN RELAY PUBLIC KEY-----\nMCowBQYDK2VwAyEAq7Lm2Vx9Rt4Wz8Kp3Nb6Yd1Jc5Gh0Fs7Ua2Qe4Tw=\n"
        "-----END RELAY PUBLIC KEY-----\n"
        "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQ7vL2xZ9k\n-----END CERTIFICATE-----",
    ),
    ("name above a setting", "env:\n  - name: LOG_LEVEL\n    value: debug\n  - name: TAG\n    value: 'v2.14.0-rc1'\n"),
    ("name above a digest", '{"name": "BUILD_SHA", "value": "3f9a1c2e7b4d6f8a0c1e3a5b7d9f2e4a6c8b0d1f"}'),
    ("query string", "GET /search?q=Release2024&page=2 HTTP/1.1"),
    ("glued flag that is no password", '["gcc", "-O2", "-pthread", "-Iinclude/v8", "main.c"]'),
    ("dash in prose", "版本号——v3.2.1——已经发布"),
    ("key id in a quoted key", '{"keys": [{"kty": "oct", "kid": "Mb3_Zq8rTx2LwV9pKc4Nd7Hs1Gy6Fj0Ee5Ru"}]}'),
    ("a user before a password", 'login username="release-bot2" password=<prompted>'),
    ("a host on the line before a password", "DB_HOST=db01.Internal.corp\nDB_PASSWORD=<from vault>\n"),
    ("a budget of tokens", "model:\n  token_budget: 250000\n  max_turns: 40\n"),
    ("a word like a chat prefix", "She signed the card with a xoxo-heavy farewell."),
    ("a publishable key", "the publishable key pk_test_Zq8rTx2LwV9pKc4Nd7Hs1G loads the widget"),
    ("setting after a versioned line", "image: ghcr.io/acme/api:v1.2.3\nimagePullPolicy: Always\nreplicas: 3\n"),
    ("padding closed by its quote", "thumb = 'QUJDREVGR0hJSktM=' # a base64 preview\nexport BUILD_ID=\"Release2024x\""),
    ("codes named without a list", "Generate 10 recovery codes in Settings, then print them.\nstep 2 of 4 done"),
    ("names listed under a label", "backup codes printed for: alice01, brandon, carolyn, dominic, eleanor"),
    ("value written into an ordinary file", "$ echo 'Release2024x' > ~/notes/summary.txt && cat ~/notes/summary.txt"),
    ("an environment variable's name in quotes", 'token_env = "GITHUB_DEPLOY_TOKEN"  # the CI sets it'),
    ("a secret store's reference", "smtp_password = vault:secret/data/mail#smtp_password"),
    ("an ARN of a stored secret", "secret_arn = arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-AbCdEf"),
    ("IAM actions after their service", '"Action": ["kms:Decrypt", "secretsmanager:GetSecretValue"]'),
    (
        "a webhook's signature of a public payload",
        "X-Hub-Signature-256: sha256=" + "9c4e1f0a7b3d2c8e5f6a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e",
    ),
]


@pytest.mark.parametrize(("name", "text", "pieces", "kept"), SECRETS, ids=[s[0] for s in SECRETS])
def test_each_class_of_secret_is_redacted(name: str, text: str, pieces: list[str], kept: str) -> None:
    out = redact(text)
    assert [piece for piece in pieces if piece in out] == [], out
    assert kept in out
    assert redact(out) == out


@pytest.mark.parametrize(("name", "text"), LOOKALIKES, ids=[s[0] for s in LOOKALIKES])
def test_each_lookalike_comes_back_unchanged(name: str, text: str) -> None:
    assert redact(text) == text
