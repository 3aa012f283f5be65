"""Quality evidence for Memory (M-80 … M-83): the zh/en corpus loader (the corpora live in the repository's
`eval/corpus/`), the evaluation and its invariants, fault harnesses."""
