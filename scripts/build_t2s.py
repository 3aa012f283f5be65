"""Write src/autopatch_j/memory/text/t2s.txt: each Traditional Chinese character with its Simplified one.

Run by hand with the `opencc` package installed (a development tool only; the product ships the small
table this writes):

    pip install opencc==1.4.2 && python scripts/build_t2s.py

Source: OpenCC's character conversion (https://github.com/BYVoid/OpenCC, Apache-2.0), configuration
`t2s`, asked one character at a time over the CJK ideographs (U+3400–U+4DBF, U+4E00–U+9FFF,
U+F900–U+FAFF): a character kept is one OpenCC turns into one other character. Character by character on
purpose: the fold must give one answer per character wherever it stands, so phrase conversions (資料庫
→ 数据库) are left to the thesaurus. One line per pair, `<traditional><simplified>`, in code-point
order; the first line is a comment naming the source.
"""

from __future__ import annotations

import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src" / "autopatch_j" / "memory" / "text" / "t2s.txt"
RANGES = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF))


def pairs() -> list[tuple[str, str]]:
    import opencc  # a development tool: see the module docstring

    converter = opencc.OpenCC("t2s")
    found: list[tuple[str, str]] = []
    for low, high in RANGES:
        for point in range(low, high + 1):
            char = chr(point)
            simplified = converter.convert(char)
            if len(simplified) == 1 and simplified != char:
                found.append((char, simplified))
    return found


def main() -> int:
    import opencc

    found = pairs()
    version = getattr(opencc, "__version__", "unknown")
    lines = [f"# OpenCC {version} t2s, character by character (scripts/build_t2s.py)"]
    lines += [t + s for t, s in found]
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({len(found):,} pairs, {OUT.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
