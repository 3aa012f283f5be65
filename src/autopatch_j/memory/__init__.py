"""Local Memory engine: schema, store, admission, jobs, pipeline, retrieval, context, export."""
