"""Importers of other coding agents' session transcripts (Claude Code, Codex) into Memory (docs/import.md)."""
