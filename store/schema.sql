-- latlab results database, format version 1.
--
-- Conventions, which every column below obeys:
--   * a unit is in every name: *_ns are integer nanoseconds, *_seconds are
--     REAL seconds, rate is requests per second, *_unix_ns is nanoseconds
--     since the Unix epoch;
--   * *_at columns are UTC timestamps as RFC 3339 text with nine fractional
--     digits ('2025-01-02T15:04:05.123456789Z'), so they sort as text and
--     pandas.to_datetime reads them;
--   * offsets (start_ns, intended_ns, t_ns, ...) count from the run's origin,
--     runs.origin_unix_ns: the start of its measurement. Warm-up comes before
--     it, so warm-up offsets are negative;
--   * *_hdr columns hold an HdrHistogram in the standard V2 compressed
--     encoding, base64 text as in HdrHistogram log files (any HdrHistogram
--     library decodes it). Values are nanoseconds, 1 µs to 1 h, in 512 ns
--     steps below 512 µs and 3 significant digits above;
--   * JSON columns are TEXT holding one JSON value; read them with
--     json_extract or json_each.
-- Child rows go when their run goes (ON DELETE CASCADE).

-- meta identifies the file: 'application' = 'latlab' and 'format_version',
-- the version of this schema, which migrations raise.
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- experiments: one row per study (one `latlab run` spec, or one attack).
CREATE TABLE experiments (
    id             INTEGER PRIMARY KEY,
    name           TEXT NOT NULL,    -- the spec's name
    spec           TEXT NOT NULL,    -- the spec file as written
    spec_hash      TEXT NOT NULL,    -- hex SHA-256 identifying the spec; the resume key
    format_version INTEGER NOT NULL, -- meta format_version when the experiment began
    created_at     TEXT NOT NULL,
    provenance     TEXT NOT NULL     -- JSON object: host, kernel, cpu_model, cpu_count,
                                     -- cpu_governor, load_average [1, 5, 15 min],
                                     -- go_version, latlab_version, seed, git_sha,
                                     -- commands {variant: [command, ...]}, extra {}
);
CREATE INDEX experiments_by_spec_hash ON experiments (spec_hash, id);

-- runs: one row per trial of the plan. A trial (experiment_id, variant, rate,
-- concurrency, rep) has at most one run: a resumed plan cannot duplicate one.
CREATE TABLE runs (
    id               INTEGER PRIMARY KEY,
    experiment_id    INTEGER NOT NULL REFERENCES experiments (id) ON DELETE CASCADE,
    variant          TEXT NOT NULL,
    rate             REAL NOT NULL,    -- target requests/s; 0 in closed loop and sequential mode
    concurrency      INTEGER NOT NULL, -- workers, or open loop's cap on requests in flight; 0 for none
    rep              INTEGER NOT NULL, -- repetition number
    position         INTEGER NOT NULL, -- place in the plan's order, from 0
    mode             TEXT NOT NULL,    -- open, closed, ramp or sequential; '' without a result
    status           TEXT NOT NULL CHECK (status IN ('done', 'interrupted', 'failed')),
    started_at       TEXT NOT NULL,    -- the trial began (setup and warm-up included)
    ended_at         TEXT NOT NULL,    -- the trial ended
    origin_unix_ns   INTEGER NOT NULL, -- time zero of this run's offsets: the measurement's start
    interval_ns      INTEGER NOT NULL, -- length of one row of intervals; 0 without a result
    duration_seconds REAL NOT NULL,    -- first intended send to last completion
    requests         INTEGER NOT NULL, -- completed requests: responses plus errors
    errors           INTEGER NOT NULL, -- requests that ended without a response
    unsuccessful     INTEGER NOT NULL, -- responses whose code is not a success
    p50_ns           INTEGER,          -- latency percentiles of the run; NULL from too few samples
    p90_ns           INTEGER,
    p99_ns           INTEGER,
    samples          INTEGER NOT NULL, -- rows of this run in samples
    samples_dropped  INTEGER NOT NULL, -- requests past the raw-sample cap, not in samples
    flags            TEXT NOT NULL,    -- JSON list of {"flag": name, "reason": why}; [] when valid
    summary          TEXT,             -- JSON record.Summary of the measurement; NULL without a result
    warmup           TEXT,             -- JSON record.Summary of the warm-up; NULL without one
    error            TEXT,             -- why the run failed or was interrupted; NULL otherwise
    UNIQUE (experiment_id, variant, rate, concurrency, rep)
);

-- intervals: the per-interval series (1 s by default) of each phase.
CREATE TABLE intervals (
    run_id         INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    phase          TEXT NOT NULL CHECK (phase IN ('warmup', 'measure')),
    idx            INTEGER NOT NULL, -- from 0 within the phase
    start_ns       INTEGER NOT NULL, -- offsets from runs.origin_unix_ns
    end_ns         INTEGER NOT NULL,
    sent           INTEGER NOT NULL, -- requests sent in the interval
    completed      INTEGER NOT NULL, -- requests completed: responses plus errors
    errors         INTEGER NOT NULL, -- completed without a response
    unsuccessful   INTEGER NOT NULL, -- responses whose code is not a success
    in_flight_mean REAL NOT NULL,    -- requests in flight, sampled every 10 ms by default
    in_flight_max  INTEGER NOT NULL,
    p50_ns         INTEGER,          -- latency percentiles; NULL from too few samples
    p90_ns         INTEGER,
    p99_ns         INTEGER,
    latency_hdr    BLOB NOT NULL,    -- completion − intended send
    service_hdr    BLOB NOT NULL,    -- completion − actual send
    PRIMARY KEY (run_id, phase, idx)
);

-- histograms: each phase's totals, one row per kind.
CREATE TABLE histograms (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    phase  TEXT NOT NULL CHECK (phase IN ('warmup', 'measure')),
    kind   TEXT NOT NULL CHECK (kind IN ('latency', 'service', 'lag', 'connect', 'tls')),
                          -- latency: completion − intended send; service: completion −
                          -- actual send; lag: actual − intended send; connect: dial time
                          -- of new connections; tls: their handshake time
    count  INTEGER NOT NULL, -- values recorded
    hdr    BLOB NOT NULL,
    PRIMARY KEY (run_id, phase, kind)
);

-- steps: per scenario step totals of the measurement, when there are several.
CREATE TABLE steps (
    run_id       INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    idx          INTEGER NOT NULL, -- the step's place in the scenario, from 0
    name         TEXT NOT NULL,
    requests     INTEGER NOT NULL,
    errors       INTEGER NOT NULL,
    unsuccessful INTEGER NOT NULL,
    status_codes TEXT NOT NULL,    -- JSON object {"200": responses, ...}
    error_counts TEXT NOT NULL,    -- JSON object {"timeout": requests, ...}
    latency_hdr  BLOB NOT NULL,
    service_hdr  BLOB NOT NULL,
    PRIMARY KEY (run_id, idx)
);

-- samples: raw requests of the measurement, in intended-send order, up to
-- the cap (runs.samples_dropped counts the rest). Warm-up is not kept raw.
CREATE TABLE samples (
    run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL, -- from 0, by intended send time
    intended_ns INTEGER NOT NULL, -- when the schedule wanted it sent
    sent_ns     INTEGER NOT NULL, -- when its first byte was written
    done_ns     INTEGER NOT NULL, -- when it completed or failed
    code        INTEGER NOT NULL, -- HTTP status; 0 without a response
    bytes_in    INTEGER NOT NULL, -- response bytes, headers included
    bytes_out   INTEGER NOT NULL, -- request bytes
    error       TEXT,             -- error class (timeout, refused, reset, tls, protocol, other); NULL for a response
    step        INTEGER NOT NULL, -- scenario step, from 0
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;

-- probes: side measurements as one long table of time series.
CREATE TABLE probes (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    probe  TEXT NOT NULL, -- metrics, prometheus, process, traces, ...
    series TEXT NOT NULL, -- e.g. cpu_percent, rss_bytes, filter_p99_seconds
    labels TEXT NOT NULL, -- JSON object of label name to value; {} for none
    t_ns   INTEGER NOT NULL, -- offset from runs.origin_unix_ns
    value  REAL NOT NULL  -- in the unit the series name gives
);
CREATE INDEX probes_by_run ON probes (run_id, probe, series, t_ns);

-- profiles: pprof profiles of targets taken during the run.
CREATE TABLE profiles (
    id       INTEGER PRIMARY KEY,
    run_id   INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    target   TEXT NOT NULL, -- the profiled process: a graph node name or a URL
    kind     TEXT NOT NULL, -- cpu or heap
    taken_at TEXT NOT NULL, -- the profile was requested
    duration_seconds REAL NOT NULL, -- a CPU profile's span; 0 for a heap profile
    data     BLOB NOT NULL, -- the profile as served: gzipped pprof protobuf
    unit     TEXT NOT NULL, -- unit of top's flat and cum: nanoseconds (cpu), bytes (heap)
    top      TEXT NOT NULL  -- JSON list of {"function", "flat", "cum"}, largest flat first
);
CREATE INDEX profiles_by_run ON profiles (run_id);
