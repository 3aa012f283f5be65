"""Inputs that made the old backtracking redaction rules quadratic (issue 10 item 4).

Shared by `tests/cloud/test_redaction_bypass.py` (linear-time checks) and `bench/redaction_bench.py`
(the timings); each adds its own cousins. Every entry builds a text of exactly `n` characters or
a fixed prefix plus `n`.
"""

from __future__ import annotations

from collections.abc import Callable

QUADRATIC_BEFORE: dict[str, Callable[[int], str]] = {
    "word run": lambda n: "a" * n,
    "CJK run": lambda n: "密" * n,
    "keyword run": lambda n: ("token" * n)[:n],
    "dotted run": lambda n: ("a." * n)[:n],
    "key=key=…": lambda n: ("a=" * n)[:n],
    "password=password=…": lambda n: ("password=" * n)[:n],
    "unclosed quote": lambda n: 'password="' + "x" * n,
    "escapes": lambda n: ("\\n" * n)[:n],
    "scheme chain": lambda n: ("a://:" * n)[:n],
    "PEM headers": lambda n: ("-----BEGIN " * n)[:n],
}

# Inputs aimed at the decoded, joined and labelled views (URL decoding, line wraps inside tokens,
# Chinese labels, `.netrc` lines): linear time is checked on them too.
NEW_FORMS: dict[str, Callable[[int], str]] = {
    "wrapped token lines": lambda n: ("Ab12\n" * n)[:n],
    "URL escapes": lambda n: ("%253D" * n)[:n],
    "Chinese labels": lambda n: ("密码是 " * n)[:n],
    "netrc machines": lambda n: ("machine a " * n)[:n],
    "spaces before a break": lambda n: "Ab12" + " " * n + "\nCd34",
    "quoted values cut at every line": lambda n: ("│ PASS='Ab3dEf9hKq\n│ 2m' X='Zy8w\n" * n)[:n],
    "gutters and open quotes": lambda n: ("> > │ 'a b c " * n)[:n],
    "indented fixed-width lines": lambda n: (("    " + "Ab12Cd34" * 5 + "\n") * n)[:n],
}

# Inputs aimed at the grammar rules (prose, Chinese label + verb, argv lists, tables, printf) and at
# the fixed-column join (every line the same width): linear time is checked on them too.
NEW_SHAPES: dict[str, Callable[[int], str]] = {
    "prose words": lambda n: ("password for the a " * n)[:n],
    "label then verbs": lambda n: ("密码改改改改改改" * n)[:n],
    "table cells": lambda n: ("| token " * n)[:n],
    "argv flags": lambda n: ('"--password", ' * n)[:n],
    "redis-cli runs": lambda n: ("redis-cli -a " * n)[:n],
    "printf formats": lambda n: ("printf 'password " * n)[:n],
    "fixed-width lines": lambda n: ("Ab12Cd34Ef56Gh78Ij90\n" * n)[:n],
    "subscript keys": lambda n: ('x["token"] ' * n)[:n],
    "echo pipes": lambda n: ("echo abcd | " * n)[:n],
    "set … to": lambda n: ("set the password " * n)[:n],
    "use … as": lambda n: ("use abcd as " * n)[:n],
    "setter calls": lambda n: ('.setPassword("' * n)[:n],
    "htpasswd words": lambda n: ("htpasswd -b " * n)[:n],
    "URL-encoded UTF-8": lambda n: ("%E5%AF%86" * n)[:n],
    "ssh-keygen flags": lambda n: ("ssh-keygen -N " * n)[:n],
    "glued labels": lambda n: ("密码Ab12" * n)[:n],
    "credential pairs": lambda n: ("账号/密码：a / " * n)[:n],
    "word then space": lambda n: ("password " * n)[:n],
    "labels before a line": lambda n: ("密钥如下：\n" * n)[:n],
    "HTML entities": lambda n: ("&quot;&#61;" * n)[:n],
    "XML secret elements": lambda n: ("<password>" * n)[:n],
    "name-value calls": lambda n: ('("token", ' * n)[:n],
    "YAML block keys": lambda n: ("password: |\n " * n)[:n],
    "key/value attributes": lambda n: ('key="token" value="' * n)[:n],
}

# Inputs aimed at the form view, names cut by a fixed-column wrap, secrets running to the end of a
# long line, keyword-located grammar rules, login calls and labels before quotes or arrows.
NEW_PATHS: dict[str, Callable[[int], str]] = {
    "form bodies": lambda n: ("password+Ab1%21+" * n)[:n],
    "cut names at one width": lambda n: ("x=1; export ORDERS_K\n" * n)[:n],
    "long lines ending in a secret": lambda n: (("a" * 60) + " token=Ab12Cd34\nEf56 " * n)[:n],
    "log in with": lambda n: ("log in with " * n)[:n],
    "login calls": lambda n: ('.login("a", "' * n)[:n],
    "arrows after labels": lambda n: ("口令 -> " * n)[:n],
    "labels before brackets": lambda n: ("鉴权串【" * n)[:n],
    "labels before corner quotes": lambda n: ("口令：「" * n)[:n],
    "labels before curly quotes": lambda n: ("密码是“" * n)[:n],
    "masked groups": lambda n: ("token: " + "xxxx-" * n)[:n],
}

# Inputs aimed at the secret judge: many candidates after key words, key names that let the context
# reach back, `.pgpass` fields, a token run longer than a candidate and a long lowercase run.
NEW_JUDGE: dict[str, Callable[[int], str]] = {
    "judged candidates": lambda n: ("password Ab3dEf9h " * n)[:n],
    "key names before values": lambda n: ("DB_PASSWORD=Ab3dEf9h\n" * n)[:n],
    "pgpass fields": lambda n: ("h:5432:d:u:Xy7Kp2Lm " * n)[:n],
    "one long token run": lambda n: ("A1" * n)[:n],
    "lowercase run then a capital": lambda n: "a" * n + "Z",
    "names above values": lambda n: ("- name: API_TOKEN\n  value: 'Ab3dEf9h'\n" * n)[:n],
    "glued short flags": lambda n: ('"-pAb3dEf9h?", ' * n)[:n],
    "URLs with placeholder logins": lambda n: ("DB_PASSWORD=mysql://u:${P}@h:1/d?a=b&" * n)[:n],
    "schemes without blanks": lambda n: ("pwd=a://" * n)[:n],
    "boxed rows under hanging indents": lambda n: ("│ | K | TOKEN | Ab3dEf9hKq\n│   Zy8wQ2 | x |\n" * n)[:n],
    "odd cells in a column of values": lambda n: ("| s | value |\n|---|---|\n" + "| a | q7#W=K |\n" * n)[:n],
    "rows cut inside a cell": lambda n: ("| s | o | value | r |\n" + "| a | b | Ab3dEf9h\nZy8=wQ2 | x |\n" * n)[:n],
    "one row of many cells": lambda n: ("| s | value |\n|---|---|\n" + "| a " * n)[:n],
    "rule rows": lambda n: ("|---|---|\n" * n)[:n],
}

# inputs aimed at the rules of layout (`secret_layouts`) and the judge's fused key words
NEW_LAYOUTS: dict[str, Callable[[int], str]] = {
    "hook urls": lambda n: ("https://h.io/a/b/c/d/e/f/g/webhook/" * n)[:n],
    "one long hook path": lambda n: ("https://h.io/hook/" + "a1/" * n)[:n],
    "logins before hosts": lambda n: ("svc/pass@//db.internal:ab/ " * n)[:n],
    "at signs after a login": lambda n: ("u/" + "a@" * n)[:n],
    "slashes and at signs": lambda n: ("a/Ab3dEf9h@" * n)[:n],
    "groups of four": lambda n: ("k7qm " * n)[:n],
    "codes of two halves": lambda n: ("q7k2m-x9t4z " * n)[:n],
    "fused key words": lambda n: ("requirepass Ab3dEf9h " * n)[:n],
    "labels before codes": lambda n: (("recovery codes " + "a1b2c3 " * 3 + "\n") * n)[:n],
    "one label before many codes": lambda n: ("backup codes: " + "a1b2c3d4 " * n)[:n],
}

# inputs aimed at the rules of where a secret goes (`secret_sinks`) and the judge's call arguments
NEW_SINKS: dict[str, Callable[[int], str]] = {
    "literals in open calls": lambda n: ('hmac.New(h, []byte("Ab3dEf9hQ2xY7kLm"), ' * n)[:n],
    "literals joined in digests": lambda n: ("md5(a + 'Ab3dEf9hQ2xY7kLm' + " * n)[:n],
    "base64 logins": lambda n: ("dXNlcjpwYXNzd29yZDEyMw== " * n)[:n],
    "one long base64 run": lambda n: ("QUJD" * n)[:n],
    "key ids before secrets": lambda n: ("AKID1234567890ABCDEF Ab3dEf9hQ2xY7kLmAb3dEf9hQ2xY7kLm " * n)[:n],
    "echo into secret files": lambda n: ("echo 'Ab3dEf9h' > .vault_pass; " * n)[:n],
    "ampersands after a value": lambda n: ("merchant.key=" + "a&" * n)[:n],
    "key literals for base64": lambda n: ("Buffer.from('Ab3dEf9hQ2xY:').toString('base64') " * n)[:n],
}

# inputs aimed at values placed with no trigger word: key abbreviations, table columns, variables
# handed to a key later on, printed files, request headers, user/password options, SQL, PuTTY key
# files, mail logins, signed tokens, fold marks and continuation marks; a network device's key
# positions, VRP cipher marks never closed, eSIM activation codes, `md5` keys and fingerprints; FIX
# messages with no checksum, kdb+ handles and password checks, mail relay lines, table rows psql continues,
# `net user` arguments; Markdown tables under a header and rows without one, empty settings, logins
# written `user / password`, issued tokens' heads, a switch's privilege passwords, request
# signatures, Lua and C# string openers, values before shell prompts; a password's words before a
# user at a host, a Chinese role label before an account, users of URLs, random query fields
# beside timestamps and signatures; keys ending in a vendor's noun for a credential, file names
# ending lines over random runs, printed secrets' files inside JSON strings; lowercase letter groups
# and here-strings, JSON Web Key members, labels with a bracketed aside before a digest; values
# after one-letter options (glued and apart), quoted replies' lines ending in a Chinese copula,
# reference numbers after a Chinese label
NEW_PLACEMENTS: dict[str, Callable[[int], str]] = {
    "abbreviated keys": lambda n: ("cs: Ab3dEf9hQ2 " * n)[:n],
    "table headers and rows": lambda n: (("字段,值," * 8 + "\n" + "a.cs,Ab3dEf9h," * 8 + "\n") * n)[:n],
    "variables handed on": lambda n: ("A=Ab3dEf9hQ2 $A $A token=$B " * n)[:n],
    "printed files": lambda n: ("$ cat ~/.secrets\nu Ab3dEf9h\n" * n)[:n],
    "header options": lambda n: ("-H 'X-A: Ab3dEf9hQ2' " * n)[:n],
    "user then password options": lambda n: ("-U a -P -U a -P " * n)[:n],
    "identified by": lambda n: ("identified by " * n)[:n],
    "key file private lines": lambda n: ("Private-Lines: 1\n" + "Ab3dEf9hQ2+/\n" * n)[:n],
    "mail logins": lambda n: ("a@b.c:" * n)[:n],
    "signed tokens": lambda n: ("sk.eyJhYmNkZWZn." * n)[:n],
    "fold and continuation marks": lambda n: ("Ab3dEf9h↩\n…Qz7Lm2Xr " * n)[:n],
    "AAA server arguments": lambda n: ("tacacs-server host a b c d e f g h i " * n)[:n],
    "SNMPv3 user lines": lambda n: ("snmp-server user a b v3 auth sha Ab3dEf9h auth sha " * n)[:n],
    "device key words": lambda n: ("message-digest-key 1 md5 key-string 7 neighbor a password " * n)[:n],
    "unclosed cipher marks": lambda n: ("%^%#Ab3dEf9h%@%@" * n)[:n],
    "activation code heads": lambda n: ("LPA:1$a.b$" * n)[:n],
    "md5 keys and fingerprints": lambda n: ("ospf_md5: SHA256:Ab3dEf9h 0x12 " * n)[:n],
    "FIX messages never checked": lambda n: ("8=FIX.4.4|9=1|554=Ab3dEf9h|" * n)[:n],
    "kdb+ handles and checks": lambda n: ("`:a:1:u:Ab3dEf9h .z.pw:{[u;p] p~" * n)[:n],
    "relay lines": lambda n: ("[a]:1 a@b.c:Ab3dEf9h " * n)[:n],
    "table rows continued": lambda n: ("| a | Ab3dEf9h +\n" * n)[:n],
    "net user arguments": lambda n: ("net user a net user " * n)[:n],
    "Markdown rows under a header": lambda n: ("| a | b | c |\n" + "| x | Ab3dEf9hQ2 | Cd4eFg0h |\n" * n)[:n],
    "Markdown cells on one line": lambda n: ("| Ab3dEf9hQ2 " * n)[:n],
    "empty settings": lambda n: ("A_B=\n" * n)[:n],
    "user slash password pairs": lambda n: ("：ab / Ab3!dEf9h " * n)[:n],
    "issued token heads": lambda n: ("T12345678/B12345678/TGT-1-ATATT3" * n)[:n],
    "privilege passwords": lambda n: ("super password role a level b " * n)[:n],
    "request signatures": lambda n: ("&sign=Ab3dEf9hQ2&signType=" * n)[:n],
    "string openers": lambda n: ('pwd = [[ pwd = @"' * n)[:n],
    "values before shell prompts": lambda n: ("Ab3d-Ef9h\nops@h:~$ " * n)[:n],
    "admin tool account arguments": lambda n: ("emqx_ctl users add a rabbitmqctl add_user " * n)[:n],
    "clock times before colon fields": lambda n: ("01:02:03+08:00 a:b:c: Ab3dEf9hQ2 " * n)[:n],
    "base64 PEM and signature heads": lambda n: ("key: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t MEUCIQAb3d " * n)[:n],
    "name and value fields": lambda n: ("name=a_key&value=name: b, value=" * n)[:n],
    "HL7 headers cut short": lambda n: ("MSH|^~\\&|a|b|c|d|e|" * n)[:n],
    "key store files and Net-SNMP flags": lambda n: ('x.pfx", "Ab3d x.jks"), snmpget -A ' * n)[:n],
    "password words before a user at a host": lambda n: ("password is for a@b " * n)[:n],
    "role labels, accounts and URL users": lambda n: (("管理员 a / https://" + "a" * 32 + "@h.i ") * n)[:n],
    "random query fields and timestamps": lambda n: ("&ts=1&x=Ab3dEf9hQ2Zk7LmN4pRs&timestamp=&sign=0a1b" * n)[:n],
    "credential nouns": lambda n: ("a_ticket: 0a1b2c3d4e5f6a7b -serial ticket A_MASTER=" * n)[:n],
    "file names ending lines": lambda n: ("$ sha1sum a-1.2.apk\n0a1b2c3d 'b=x a.pub\nAb3d+c.yaml\n" * n)[:n],
    "printed files inside JSON": lambda n: ('"$ cat /s/secrets/initialAdminPassword\\n0a1b2c3d"}, ' * n)[:n],
    "letter groups and here-strings": lambda n: ("pass-abcde-fghij-klmno-pqrst <<< 'abcd-efghi-jklmn-opqrs' " * n)[:n],
    "JSON Web Key members": lambda n: ('{"kty":"RSA","n":"Ab3dEf9hQ2","d":"Ab3dEf9hQ2","x":"' * n)[:n],
    "labels with asides before digests": lambda n: ("口令哈希（sha256，不是口令本身）：0a1b2c3d4e5f6a7b (a: " * n)[:n],
    "one-letter options": lambda n: ("-k Ab3dEf9hQ2 -A -T 0A1B2C3D -fAb3dEf9hQ2 " * n)[:n],
    "copula lines over quoted replies": lambda n: ("> 用的 API Secret就是\n> Ab3dEf9hQ2x\n" * n)[:n],
    "reference numbers after labels": lambda n: ("认证已启用（工单 DBZG-2024-6230）；" * n)[:n],
    "options with equals signs": lambda n: ("-k=Ab3dEf9hQ2 -i=0A1B2C3D -e=" * n)[:n],
    "CDATA sections in elements": lambda n: ("<aPwd><![CDATA[Ab3dEf9hQ2]]></aPwd><![CDATA[" * n)[:n],
    "queries nested in paths": lambda n: ("https://h/l?next=/a?cfg=/b?c=" * n)[:n],
    "keyed members in calls": lambda n: ("a.request({ h: { 'x-ticket': 'Ab3dEf9hQ2Zk7', " * n)[:n],
    "quoted logins before hosts": lambda n: ("a/'Ab3d*Ef9h'@b/'c'@d.e:1 f/'" * n)[:n],
    "labels after sentences": lambda n: ("Password for the user reset.\nNew value: Ab3dEf9hQ2\n" * n)[:n],
    "logins after -u with commas": lambda n: ("lftp -u a,Ab3dEf9hQ2,-u jdbc:h2://x " * n)[:n],
    "logon strings": lambda n: (".logon h.example.org/u,Ab3dEf9hQ2/" * n)[:n],
    "kinds before a dot": lambda n: ("rt.Ab3dEf9hQ2-Zk7_" * n)[:n],
    "asides after values": lambda n: ("sign=0A1B2C3D（签名结果，不是密钥）(not the key)" * n)[:n],
    "pairs after URLs": lambda n: ("http://h:9 ab Ab3dEf9hQ2x4K7m8 " * n)[:n],
    "versions before hex runs": lambda n: ("v=24.0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d." * n)[:n],
    "hex keys beside check values": lambda n: ("K=0A1B2C3D4E5F6A7B\nCV=4B9E1D\nU0A1B2C3D4E5F6A7B\n" * n)[:n],
    "image data URIs": lambda n: ("x='data:image/png;base64,iVBORw0KGgoAb3dEf9hQ2' " * n)[:n],
    "public-key DSNs": lambda n: ("dsn=https://0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d@o1.e.io/12 " * n)[:n],
    "app ids before literals": lambda n: ("Sig2(1400573459, 'Ab3dEf9hQ2x4K7m8') " * n)[:n],
    "capital keys beside long check values": lambda n: ("C: 0A1B2C3D4E5F6A7B\nKCV : 4b9e1d2a7\n" * n)[:n],
    "place keys over random values": lambda n: ('var aUri = @"Ab3dEf9hQ2x4K7m8"; F_FILE=Ab3dEf9h ' * n)[:n],
    "keys before Chinese predicates": lambda n: ("SK改成了 Ab3dEf9hQ2 SecretKey已重置，当前为Ab3dEf9hQ2x，" * n)[:n],
    "single-quoted key members": lambda n: ("{'kty':'RSA','n':'Ab3dEf9hQ2','d':'Ab3dEf9hQ2','x':'" * n)[:n],
    "integrity digests and ref+ references": lambda n: ("sha512-Ab3dEf9hQ2+/ ref+vault://a/b#/c +ref+x://" * n)[:n],
    "padded base64 query fields": lambda n: ("&a=Ab3dEf9hQ2x4K7m8/Ab3dEf9hQ2x4K7m8+Ab3=&b=Ab3d/Ef9h==" * n)[:n],
    "keys beside cipher names": lambda n: (("0a1b2c3d" * 8 + " AES-256-GCM aes128-cbc k=" + "Ab3d" * 11) * n)[:n],
    "options carrying values": lambda n: ("-field=a_secret -f=b_pass Ab3dEf9hQ2 --x=y " * n)[:n],
    "account lines over labels": lambda n: ("  login : a@b-1\n  initial : Ab3dEf9hQ2-x\n  a : " * n)[:n],
    "codes in groups and fills": lambda n: ("EN-AB3D5-4TCVE-46U93-KeyA=FFFFFFFFFFFF-KeyB=" * n)[:n],
    "account commands in single quotes": lambda n: ("xctl users add 'a' 'Ab3dEf9hQ2' 'b' xctl users add '" * n)[:n],
}
