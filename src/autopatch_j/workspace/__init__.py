"""Review workspace: pending patch, scan results, code index and request cache."""
