"""Quality evidence for Memory (M-80 … M-83): the zh/en corpus, the evaluation and its invariants, fault harnesses."""
