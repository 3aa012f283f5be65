"""What a replacement states, names and retires (Stage 2 of the offline extractor): the
content a superseding statement keeps, whether a switch names the memory it replaces, the names the
user says are dropped, and which of the replaced memory's keywords stay findable. docs/pipeline.md
has each rule with its example."""

from __future__ import annotations

from dataclasses import dataclass

from autopatch_j.memory.lexicon import Lexicon
from autopatch_j.memory.sentences import CJK_RUN, clauses, fold, given_values, proper_names, split_sentences
from autopatch_j.memory.words import broader_concepts, stem, thesaurus_keys


@dataclass(frozen=True, slots=True)
class Replacement:
    """The replacement rules over one lexicon."""

    lexicon: Lexicon

    def stated(self, content: str, replaced: list[str]) -> str:
        """What a replacement states: `content` without the clauses at its start or end that name a name
        of what it replaces and retire it or, naming no new one, state nothing. "change of plan，文档展示换成
        Redoc，Swagger UI 不要了。" after "以后 API 文档用 Swagger UI 展示" states "change of plan，文档展示换成
        Redoc"; "Prisma 的 migration 太难控制，我们 switch 到 Drizzle" states the switch; "Change of plan on
        the background jobs:" names the topic, no value, and stays; "… every Tuesday instead of every
        Friday" states "… every Tuesday". The retired value is no longer found by the content.
        The quote keeps the whole sentence; a content that would keep nothing stays whole."""
        if not replaced:
            return content
        old_names = {stem(name) for text in replaced for name in proper_names(text)}
        old_cjk = {w for text in replaced for w in self._cjk_words(text)}

        def drops(span: tuple[int, int]) -> bool:
            clause = content[span[0] : span[1]]
            written = {stem(name) for name in proper_names(clause)}
            if not (written | names_in(self.lexicon.anchor_tokens(clause))) & old_names:
                # "想了下还是不要逐行了" after "…注释，逐行的那种": a Chinese clause retiring a word of it
                return self.lexicon.retires(clause) and bool(self._cjk_words(clause) & old_cjk)
            # An aside naming a new value ("docs go on Cloudflare Pages") is the statement itself.
            only_old = written <= old_names
            return self.lexicon.retires(clause) or (self.lexicon.is_aside(clause) and only_old)

        spans = clauses(content)
        kept = list(spans)
        while kept and drops(kept[0]):
            kept.pop(0)
        while kept and drops(kept[-1]):
            kept.pop()
        if not kept:
            return content
        end = len(content) if kept[-1] == spans[-1] else kept[-1][1]
        # "… every Tuesday instead of every Friday." after "… every Friday": the new rule ends at the marker.
        last = content[kept[-1][0] : kept[-1][1]]
        marker, replaced_words = self.lexicon.replaced_part(last)
        if marker > 0 and names_in(self.lexicon.anchor_tokens(replaced_words)) & old_names:
            end = kept[-1][0] + marker
        stated = content[kept[0][0] : end].strip()
        # What is left must still say something: "From now on, answer in English for topic 4." after "…
        # topic 3." names only old names in its rule clause, and "From now on" alone states nothing.
        if not self.lexicon.anchor_tokens(stated):
            return content
        return stated if stated and stated != content.strip() else content

    def _cjk_words(self, text: str) -> set[str]:
        """The CJK bigrams of `text` as written (anchors blank assent words such as 行, which would
        cut "逐行" apart), without those that span two words."""
        runs = CJK_RUN.findall(fold(text))
        bigrams = {run[i : i + 2] for run in runs for i in range(len(run) - 1)}
        return {w for w in bigrams if not self.lexicon.spans_two_words(w)}

    def shares_name(self, new: str, old: str) -> bool:
        """A switch names what it replaces by a Latin name (by stem); a correction ("说错了，是 3 秒，不是 30
        秒") by any content word it shares with the statement it corrects."""
        new_words, old_words = self.lexicon.anchor_tokens(new), self.lexicon.anchor_tokens(old)
        if self.lexicon.is_correction(new) and new_words & old_words:
            return True
        new_names, old_names = names_in(new_words), names_in(old_words)
        if new_names & old_names:
            return True
        # A Chinese topic is named by a word of two bigrams or more ("脚本示例" in "脚本示例今后改用 Python"),
        # or by one when the switch swaps one named value for another ("部署换成 Argo" after "部署就定 Jenkins")
        # or retires it by name.
        shared_cjk = {w for w in new_words & old_words if not w.isascii()}
        swaps = bool(new_names - old_names and old_names - new_names)
        return len(shared_cjk) >= 2 or bool(shared_cjk and swaps) or self._drops_a_word_of(new, old_words)

    def _drops_a_word_of(self, new: str, old_words: frozenset[str]) -> bool:
        """A clause of `new` that retires something names a word of the replaced statement ("以后别举例子
        了" after "…多举点生活里的例子")."""
        return any(
            self.lexicon.retires(sentence[start:end]) and self.lexicon.anchor_tokens(sentence[start:end]) & old_words
            for sentence in split_sentences(new)
            for start, end in clauses(sentence)
        )

    def dropped(self, text: str, stated: str) -> set[str]:
        """The names (by stem) `text` says are dropped: those of its clauses retiring something
        ("Prisma 以后不用了", "no more Hibernate"), those after "instead of" or "而不是" ("… instead of every
        other Thursday"), and those of the clauses its `stated` content left out ("mermaid 在我终端里渲染不出来，
        以后别画图了" states no mermaid)."""
        dropped = {stem(name) for name in proper_names(text)} - {stem(name) for name in proper_names(stated)}
        for sentence in split_sentences(text):
            for start, end in clauses(sentence):
                clause = sentence[start:end]
                if self.lexicon.retires(clause):
                    dropped |= {stem(name) for name in proper_names(clause)}
                dropped |= names_in(self.lexicon.anchor_tokens(self.lexicon.replaced_part(clause)[1]))
        return dropped

    def topic(self, old_keywords: list[str], old_contents: list[str], content: str, dropped: set[str]) -> list[str]:
        """What replaced statements were about, which their replacement `content` keeps findable:
        their keywords and thesaurus concepts ("状态管理" stays findable; a retired tool names its
        topic by its broader concept: "Redux" → 状态管理) — not the values they retired: a Latin name
        or number the new statement does not use ("mysql" after "we switched to PostgreSQL", "weeks"
        after "a monthly release cut instead"), or the Chinese word a verb of adopting took that the
        new statement does not say ("中文" in "注释用中文写" after "注释一律写英文"). A value is retired only
        by a new value of its sort (a number by a number, a name written as one by another), and a
        Chinese word swapped for its counterpart with the same head (大写 → 小写) is a value too. Where
        the replacement says what it
        drops ("Prisma 以后不用了", `dropped`), only those names and values with a digit are retired
        ("orm" stays)."""
        new_words = self.lexicon.anchor_tokens(content)
        names = names_in(new_words) | {stem(v) for v in given_values(content)}
        # A sort of value is retired only by a new value of that sort: "打错了，应该是 2 小时" retires the
        # number 24, not the "JWT" its topic is named by.
        # A name written as one ("Wednesdays") retires the names written as ones ("Monday"), not the
        # topic's common words ("release", "branches").
        written = {stem(w) for w in proper_names(content)}
        old_written = {stem(w) for old in old_contents for w in proper_names(old)}
        old_names = {n for old in old_contents for n in names_in(self.lexicon.anchor_tokens(old))} | old_written
        retired_names = {
            n
            for n in old_names - names
            if any(_same_sort(n, m) and (m not in written or n in old_written) for m in names - old_names)
        }
        if dropped & old_names:  # the user said what is dropped ("Prisma 以后不用了"): that is retired, and
            # of the rest only values with a digit ("2am" after "… instead of nightly"), not "orm"
            retired_names = (dropped & old_names - names) | {n for n in retired_names if any(c.isdigit() for c in n)}
        retired_cjk = {v for old in old_contents for v in self.lexicon.adopted_values(old)} - new_words
        retired_cjk |= _counterparts({w for old in old_contents for w in self.lexicon.anchor_tokens(old)}, new_words)
        retired = retired_names | retired_cjk
        # What the new content says again is indexed with it: a bounded keyword slot goes to the rest.
        kept = [
            w
            for w in old_keywords
            if w not in retired and w not in new_words and not (_is_name(w) and stem(fold(w)) in retired_names)
        ]
        concepts = [k for old in old_contents for k in thesaurus_keys(old, retired=retired)]
        # The concepts first: the keywords are bounded, and a replaced memory's bigrams are many.
        return [*broader_concepts(retired_names), *concepts, *kept]


def stemmed(tokens: frozenset[str]) -> set[str]:
    """Content words with English words by stem ("releases" and "release" are one word)."""
    return {stem(t) if t.isascii() else t for t in tokens}


def names_in(tokens: frozenset[str]) -> set[str]:
    """The things a statement names, by English stem ("files" and "file" are one name): Latin words
    of at least three letters, and numbers ("90% 太激进了，…改成 80%" names the 90 it replaces)."""
    return {stem(t) for t in tokens if t.isascii() and (len(t) >= 3 or t.isdigit())}


def _counterparts(old_words: set[str], new_words: frozenset[str]) -> set[str]:
    """The Chinese words of a replaced statement that its replacement swaps for a counterpart with the
    same head character (大写 → 小写, 长参 → 短参, 英文 → 中文): values, not the topic."""
    fresh = [w for w in new_words if len(w) == 2 and not w.isascii() and w not in old_words]
    return {
        w
        for w in old_words
        if len(w) == 2 and not w.isascii() and w not in new_words and any(v[1] == w[1] for v in fresh)
    }


def _same_sort(a: str, b: str) -> bool:
    """Two names of one sort: both numbers, or both words."""
    return a.isdigit() == b.isdigit()


def _is_name(keyword: str) -> bool:
    """A single Latin word or number ("mysql", "weeks", "30"), not a phrase ("python version")."""
    return keyword.isascii() and " " not in keyword.strip()
