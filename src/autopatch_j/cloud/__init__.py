"""Cloud control plane: API, database, worker and automatic memory."""
