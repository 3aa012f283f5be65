-- Memory schema (v7): the single source of truth. The catalog manifest that bootstrap verifies is
-- derived from this file by applying it to an in-memory database (see catalog.py).
-- Times are UNIX seconds (REAL). Ids are INTEGER PRIMARY KEY. One database per repository.

CREATE TABLE memory_meta (
    id                INTEGER PRIMARY KEY CHECK (id = 1),
    generation        INTEGER NOT NULL CHECK (generation >= 1),
    created_at        REAL    NOT NULL,
    updated_at        REAL    NOT NULL,
    last_error        TEXT    CHECK (last_error IS NULL OR length(last_error) <= 20000),
    last_error_job_id INTEGER,
    last_succeeded_at REAL
) STRICT;

CREATE TABLE threads (
    id                    INTEGER PRIMARY KEY AUTOINCREMENT,
    status                TEXT    NOT NULL CHECK (status IN ('active', 'archived')),
    compaction            TEXT    NOT NULL DEFAULT '' CHECK (length(compaction) <= 4000),
    compacted_through_seq INTEGER NOT NULL DEFAULT 0,
    created_at            REAL    NOT NULL,
    archived_at           REAL,
    CHECK ((status = 'archived') = (archived_at IS NOT NULL))
) STRICT;

CREATE UNIQUE INDEX threads_one_active ON threads (status) WHERE status = 'active';

-- One row per ordinary exchange: the RAW user text and the final answer the user saw.
CREATE TABLE turns (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    thread_id        INTEGER NOT NULL REFERENCES threads (id),
    seq              INTEGER NOT NULL CHECK (seq >= 1),
    intent           TEXT    NOT NULL CHECK (intent IN ('code_explain', 'general_chat')),
    status           TEXT    NOT NULL CHECK (status IN ('open', 'completed', 'failed', 'interrupted')),
    user_text        TEXT    NOT NULL,
    assistant_text   TEXT,
    error            TEXT    CHECK (error IS NULL OR length(error) <= 20000),
    owner            TEXT,
    lease_expires_at REAL,
    created_at       REAL    NOT NULL,
    updated_at       REAL    NOT NULL,
    UNIQUE (thread_id, seq),
    CHECK ((status = 'open') = (owner IS NOT NULL AND lease_expires_at IS NOT NULL)),
    CHECK (status <> 'completed' OR assistant_text IS NOT NULL)
) STRICT;

CREATE INDEX turns_open_lease ON turns (lease_expires_at) WHERE status = 'open';

CREATE INDEX turns_thread_status_seq ON turns (thread_id, status, seq);

-- Durable extraction (one per turn) and consolidation (one per extraction batch with candidates) jobs.
CREATE TABLE memory_jobs (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    kind             TEXT    NOT NULL CHECK (kind IN ('extraction', 'consolidation')),
    thread_id        INTEGER NOT NULL REFERENCES threads (id),
    turn_id          INTEGER UNIQUE REFERENCES turns (id),
    parent_job_id    INTEGER REFERENCES memory_jobs (id),
    status           TEXT    NOT NULL
        CHECK (status IN ('pending', 'leased', 'retry_wait', 'succeeded', 'succeeded_no_output', 'failed')),
    generation       INTEGER NOT NULL CHECK (generation >= 1),
    owner            TEXT,
    lease_expires_at REAL,
    batch_id         TEXT,
    attempts         INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at  REAL    NOT NULL,
    last_error       TEXT    CHECK (last_error IS NULL OR length(last_error) <= 20000),
    created_at       REAL    NOT NULL,
    updated_at       REAL    NOT NULL,
    CHECK ((kind = 'extraction') = (turn_id IS NOT NULL)),
    CHECK ((status = 'leased') = (owner IS NOT NULL AND lease_expires_at IS NOT NULL))
) STRICT;

CREATE INDEX memory_jobs_due ON memory_jobs (status, kind, next_attempt_at);

CREATE INDEX memory_jobs_parent ON memory_jobs (parent_job_id);

-- Stage 1 output. Every candidate carries at least one exact quote (candidate_sources).
CREATE TABLE memory_candidates (
    id                   INTEGER PRIMARY KEY AUTOINCREMENT,
    thread_id            INTEGER NOT NULL REFERENCES threads (id),
    extraction_job_id    INTEGER NOT NULL REFERENCES memory_jobs (id),
    consolidation_job_id INTEGER REFERENCES memory_jobs (id),
    kind                 TEXT    NOT NULL
        CHECK (kind IN ('user_preference', 'project_decision', 'discussion_context')),
    content              TEXT    NOT NULL CHECK (length(content) BETWEEN 1 AND 2000),
    subject              TEXT    NOT NULL DEFAULT '',
    non_factual          INTEGER NOT NULL CHECK (non_factual IN (0, 1)),
    status               TEXT    NOT NULL CHECK (status IN ('pending', 'applied', 'rejected', 'suppressed')),
    created_at           REAL    NOT NULL,
    CHECK (kind <> 'discussion_context' OR non_factual = 1)
) STRICT;

CREATE INDEX memory_candidates_consolidation ON memory_candidates (consolidation_job_id);

CREATE TABLE candidate_sources (
    candidate_id INTEGER NOT NULL REFERENCES memory_candidates (id) ON DELETE CASCADE,
    ordinal      INTEGER NOT NULL CHECK (ordinal >= 0),
    turn_id      INTEGER NOT NULL REFERENCES turns (id),
    role         TEXT    NOT NULL CHECK (role IN ('user', 'assistant')),
    quote        TEXT    NOT NULL CHECK (length(quote) BETWEEN 1 AND 2000),
    PRIMARY KEY (candidate_id, ordinal)
) STRICT;

CREATE INDEX candidate_sources_turn ON candidate_sources (turn_id);

-- Stage 2 output: append-only revisions. memory_id is the stable id users see (the id of the
-- item's first revision); each revise appends a row with revision + 1.
CREATE TABLE memory_items (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    memory_id     INTEGER NOT NULL,
    revision      INTEGER NOT NULL CHECK (revision >= 1),
    kind          TEXT    NOT NULL
        CHECK (kind IN ('user_preference', 'project_decision', 'discussion_context')),
    thread_id     INTEGER REFERENCES threads (id),
    title         TEXT    NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
    content       TEXT    NOT NULL CHECK (length(content) BETWEEN 1 AND 2000),
    aliases       TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(aliases)),
    keywords      TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(keywords)),
    non_factual   INTEGER NOT NULL CHECK (non_factual IN (0, 1)),
    status        TEXT    NOT NULL CHECK (status IN ('active', 'revised', 'superseded', 'forgotten')),
    operation     TEXT    NOT NULL CHECK (operation IN ('create', 'revise', 'supersede')),
    superseded_by INTEGER,
    job_id        INTEGER REFERENCES memory_jobs (id),
    created_at    REAL    NOT NULL,
    updated_at    REAL    NOT NULL,
    -- v4: what the memory is about, a short lowercase English phrase ("test framework"); '' when unknown.
    subject       TEXT    NOT NULL DEFAULT '',
    UNIQUE (memory_id, revision),
    CHECK ((kind = 'discussion_context') = (thread_id IS NOT NULL)),
    CHECK (kind <> 'discussion_context' OR non_factual = 1)
) STRICT;

CREATE UNIQUE INDEX memory_items_one_active_revision ON memory_items (memory_id) WHERE status = 'active';

CREATE INDEX memory_items_active_kind ON memory_items (status, kind, updated_at);

CREATE TABLE memory_item_candidates (
    item_id      INTEGER NOT NULL REFERENCES memory_items (id) ON DELETE CASCADE,
    candidate_id INTEGER NOT NULL REFERENCES memory_candidates (id),
    PRIMARY KEY (item_id, candidate_id)
) WITHOUT ROWID, STRICT;

CREATE INDEX memory_item_candidates_candidate ON memory_item_candidates (candidate_id);

-- v6: the search index of active revisions (a derived index, rebuilt on every item change;
-- docs/retrieval.md), stored compactly: terms by number, no term lists. One row per distinct term in
-- memory_term_stats (its number `id`, its text, how many indexed items hold it; the empty term counts
-- the indexed items); one row per (term, item) in memory_postings, where `weight` is the item's BM25
-- term-frequency part for the term (occurrences in the title and subject count more) × 100, less
-- 100, so that it fits SQLite's one-byte integer (the part is below 2.2, so -99 … 119).
CREATE TABLE memory_term_stats (
    id    INTEGER PRIMARY KEY,
    term  TEXT    NOT NULL UNIQUE CHECK (length(term) <= 64),
    items INTEGER NOT NULL CHECK (items >= 0)
) STRICT;

CREATE TABLE memory_postings (
    term_id INTEGER NOT NULL,
    item_id INTEGER NOT NULL,
    weight  INTEGER NOT NULL CHECK (weight BETWEEN -99 AND 127),
    PRIMARY KEY (term_id, item_id)
) WITHOUT ROWID, STRICT;

-- Each indexed item and how many postings it still holds. Dropping an item deletes its postings by
-- their key, the keys recomputed from its row by the indexer (memory/index.py); the row's delete
-- trigger then deletes any posting left (none unless the tokenizer changed since it was indexed) by
-- probing every term's key, so no posting outlives its item whatever the tokenizer became.
CREATE TABLE memory_search_docs (
    item_id INTEGER PRIMARY KEY REFERENCES memory_items (id) ON DELETE CASCADE,
    terms   INTEGER NOT NULL CHECK (terms >= 0)
) STRICT;

CREATE TRIGGER memory_search_docs_insert AFTER INSERT ON memory_search_docs
BEGIN
    INSERT INTO memory_term_stats (term, items) VALUES ('', 1) ON CONFLICT (term) DO UPDATE SET items = items + 1;
END;

CREATE TRIGGER memory_search_docs_delete AFTER DELETE ON memory_search_docs
BEGIN
    UPDATE memory_term_stats SET items = items - 1 WHERE term = '';
    DELETE FROM memory_postings
    WHERE OLD.terms > 0 AND item_id = OLD.item_id AND term_id IN (SELECT id FROM memory_term_stats);
END;

-- A posting names a term of memory_term_stats (the indexer adds the term first).
CREATE TRIGGER memory_postings_term BEFORE INSERT ON memory_postings
WHEN NOT EXISTS (SELECT 1 FROM memory_term_stats WHERE id = NEW.term_id)
BEGIN
    SELECT RAISE(ABORT, 'memory_postings: unknown term id');
END;

CREATE TRIGGER memory_postings_insert AFTER INSERT ON memory_postings
BEGIN
    UPDATE memory_term_stats SET items = items + 1 WHERE id = NEW.term_id;
END;

CREATE TRIGGER memory_postings_delete AFTER DELETE ON memory_postings
BEGIN
    UPDATE memory_term_stats SET items = items - 1 WHERE id = OLD.term_id;
    UPDATE memory_search_docs SET terms = terms - 1 WHERE item_id = OLD.item_id;
END;

-- v5: a random stamp of what a search reads: the search index and the item rows. Every change of the
-- term statistics (so every posting added or dropped, and every item indexed or dropped), of a
-- posting's weight and of a memory_items row replaces it, in the same transaction, so one stamp names
-- one committed content: a process may keep a copy of postings and item rows read under a stamp and
-- trust it exactly while the stamp is unchanged (docs/retrieval.md). No row until the first change.
CREATE TABLE memory_index_state (
    id    INTEGER PRIMARY KEY CHECK (id = 1),
    stamp INTEGER NOT NULL
) STRICT;

CREATE TRIGGER memory_term_stats_insert_stamp AFTER INSERT ON memory_term_stats
BEGIN
    INSERT INTO memory_index_state (id, stamp) VALUES (1, random()) ON CONFLICT (id) DO UPDATE SET stamp = excluded.stamp;
END;

CREATE TRIGGER memory_term_stats_update_stamp AFTER UPDATE ON memory_term_stats
BEGIN
    INSERT INTO memory_index_state (id, stamp) VALUES (1, random()) ON CONFLICT (id) DO UPDATE SET stamp = excluded.stamp;
END;

CREATE TRIGGER memory_term_stats_delete_stamp AFTER DELETE ON memory_term_stats
BEGIN
    INSERT INTO memory_index_state (id, stamp) VALUES (1, random()) ON CONFLICT (id) DO UPDATE SET stamp = excluded.stamp;
END;

CREATE TRIGGER memory_postings_update_stamp AFTER UPDATE ON memory_postings
BEGIN
    INSERT INTO memory_index_state (id, stamp) VALUES (1, random()) ON CONFLICT (id) DO UPDATE SET stamp = excluded.stamp;
END;

CREATE TRIGGER memory_items_insert_stamp AFTER INSERT ON memory_items
BEGIN
    INSERT INTO memory_index_state (id, stamp) VALUES (1, random()) ON CONFLICT (id) DO UPDATE SET stamp = excluded.stamp;
END;

CREATE TRIGGER memory_items_update_stamp AFTER UPDATE ON memory_items
BEGIN
    INSERT INTO memory_index_state (id, stamp) VALUES (1, random()) ON CONFLICT (id) DO UPDATE SET stamp = excluded.stamp;
END;

CREATE TRIGGER memory_items_delete_stamp AFTER DELETE ON memory_items
BEGIN
    INSERT INTO memory_index_state (id, stamp) VALUES (1, random()) ON CONFLICT (id) DO UPDATE SET stamp = excluded.stamp;
END;

-- v7: which derivation of search keys built the index (docs/retrieval.md): one row holding the key
-- version of memory/index.py that the last rebuild used. A store whose row names another version (or
-- has none) is rebuilt once when it is opened (memory/rekey.py); every rebuild rewrites the row.
CREATE TABLE memory_index_keys (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL CHECK (version >= 1)
) STRICT;

-- v3: imports of other agents' sessions (docs/import.md). One row per imported session: its own
-- (archived) thread and the cursor where the import stopped, moved in the same transaction as the
-- turns it covers. Added by memory/upgrade.py to v2 stores.
CREATE TABLE import_sessions (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    source      TEXT    NOT NULL CHECK (source IN ('claude-code', 'codex')),
    session_id  TEXT    NOT NULL CHECK (length(session_id) BETWEEN 1 AND 200),
    thread_id   INTEGER NOT NULL REFERENCES threads (id),
    path        TEXT,
    byte_offset INTEGER NOT NULL DEFAULT 0 CHECK (byte_offset >= 0),
    created_at  REAL    NOT NULL,
    updated_at  REAL    NOT NULL,
    UNIQUE (source, session_id)
) STRICT;

-- Every key an imported turn is known by (a record uuid, a Codex turn id, a line offset), so a turn
-- that arrives again (a re-run, or the hook and the transcript import) finds itself and is skipped.
CREATE TABLE imported_turns (
    session_row INTEGER NOT NULL REFERENCES import_sessions (id),
    external_id TEXT    NOT NULL CHECK (length(external_id) BETWEEN 1 AND 300),
    turn_id     INTEGER NOT NULL REFERENCES turns (id),
    fingerprint TEXT    NOT NULL,
    PRIMARY KEY (session_row, external_id)
) WITHOUT ROWID, STRICT;

CREATE INDEX imported_turns_fingerprint ON imported_turns (session_row, fingerprint);

CREATE INDEX imported_turns_turn ON imported_turns (turn_id);
