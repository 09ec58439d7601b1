// Package store is latlab's results database: one SQLite file (results.db)
// that holds one or more experiments, every run of them and everything each
// run measured. It is written with the pure Go driver modernc.org/sqlite, and
// anyone can read it with sqlite3, pandas or any HdrHistogram library.
//
// # Schema
//
// The schema is schema.sql, documented there column by column, and the
// steps that migrations append to it (level.go: runs.level). Units are in
// the column names: *_ns are integer nanoseconds, *_seconds REAL seconds,
// rate is requests per second, *_at are UTC RFC 3339 texts. Offsets (start_ns,
// intended_ns, t_ns) count from the run's origin_unix_ns, the start of its
// measurement; warm-up offsets are negative.
//
//	meta        application = latlab, format_version
//	experiments id, name, spec, spec_hash, format_version, created_at,
//	            provenance (JSON: host, kernel, cpu_model, cpu_count,
//	            cpu_governor, load_average, go_version, latlab_version, seed,
//	            git_sha, commands)
//	runs        id, experiment_id, variant, rate, concurrency, level ('100/s',
//	            'c=8', '100/s c=8': record.Level's text), rep, position,
//	            mode, status (done | interrupted | failed), started_at, ended_at,
//	            origin_unix_ns, duration_seconds, requests, errors, p50_ns,
//	            p90_ns, p99_ns, samples, flags (JSON [{flag, reason}]),
//	            summary and warmup (JSON record.Summary), error;
//	            UNIQUE (experiment_id, variant, level, rep)
//	intervals   run_id, phase (warmup | measure), idx, start_ns, end_ns, sent,
//	            completed, errors, unsuccessful, in_flight_mean, in_flight_max,
//	            p50_ns, p90_ns, p99_ns, latency_hdr, service_hdr
//	histograms  run_id, phase, kind (latency | service | lag | connect | tls),
//	            count, hdr: each phase's totals
//	steps       run_id, idx, name, requests, errors, status_codes, latency_hdr, ...
//	samples     run_id, seq, intended_ns, sent_ns, done_ns, code, bytes_in,
//	            bytes_out, error (class or NULL), step: raw requests, capped
//	probes      run_id, probe, series, labels (JSON), t_ns, value: time series
//	profiles    run_id, target, kind (cpu | heap), taken_at, data (pprof), top
//	shards      run_id, idx, name, node, offset_ns, offset_bound_ns, start_ns,
//	            error, result (record.EncodeResult, no raw samples): the
//	            generators of a sharded run, each with its own result; the
//	            run's is theirs merged (format 3)
//
// Histogram columns (*_hdr, hdr) hold HdrHistogram's standard V2 compressed
// encoding as base64 text, the form of HdrHistogram log files: values in
// nanoseconds, 1 µs to 1 h, in 512 ns steps below 512 µs and 3 significant
// digits above (record.NewHistogram). Reports read percentiles from them,
// never from the raw samples, so they stay fast at any size.
//
// The warm-up is stored apart from the measurement: its intervals and totals
// have phase 'warmup' and its summary is runs.warmup. It is never part of
// the run's own figures; the run's summary only counts its requests, in
// warmup_requests. Raw samples are kept of the measurement only.
//
// # Reading it without latlab
//
//	$ sqlite3 results.db 'SELECT variant, rate, rep, status FROM runs'
//	$ sqlite3 results.db "SELECT variant, rate, avg(p99_ns) / 1e6 AS p99_ms
//	      FROM runs WHERE status = 'done' AND flags = '[]' GROUP BY variant, rate"
//	$ sqlite3 results.db "SELECT r.id, f.value ->> 'flag', f.value ->> 'reason'
//	      FROM runs r, json_each(r.flags) f"
//
// and from Python:
//
//	import sqlite3, pandas as pd
//	db = sqlite3.connect("file:results.db?mode=ro", uri=True)
//	runs = pd.read_sql_query("SELECT variant, rate, rep, status, p99_ns FROM runs", db)
//	iv = pd.read_sql_query("SELECT run_id, start_ns, completed, p99_ns FROM intervals"
//	                       " WHERE phase = 'measure'", db)
//	# histograms: from hdrh.histogram import HdrHistogram; HdrHistogram.decode(blob)
//
// # Use from Go
//
// Open the file, find the spec's experiment by SpecHash or create it, skip
// the trials CompletedTrials lists when resuming, and write each run with
// WriteRun: the package's Example does this for a plan of two trials,
// stopped after the first and resumed.
//
// # Reliability
//
// WriteRun stores all of a run in one transaction: a process killed at any
// moment leaves every run committed before and no part of the one it was
// writing, and the UNIQUE trial key keeps a resumed plan from running a
// trial twice. The file is in WAL mode with synchronous=NORMAL: a crash of
// the process loses nothing committed; a crash of the machine may lose the
// last runs committed (a resumed plan runs them again) but never corrupts
// the file. While a DB is open its write-ahead log (results.db-wal) and the
// log's index (results.db-shm) lie beside the file; Close folds the log into
// the file and deletes both, for OpenReadOnly too where the file and its
// folder can be written, so a clean exit leaves results.db alone. A killed
// process leaves them, and the next open recovers from them. A full disk or a read-only file or directory fails the write
// with ErrFull or ErrReadOnly and rolls it back. Open refuses a file that
// is not a latlab database (ErrNotDatabase) or is in a newer format
// (ErrTooNew), without changing it. A row that does not decode — a JSON
// column that is not JSON, a histogram that is not one, a value of the
// wrong type, as a failing disk or a hand edit leaves — does not fail a
// read of many: Runs, Totals, Probes, Steps and Shards return the rows that
// decode with a *Damaged error naming each other one (its table, its run,
// what is wrong), which a caller that can do without them tells apart with
// DamagedRows.
//
// # Formats and migrations
//
// The format version is in meta and in each experiment. Open migrates an
// older file in one transaction; released migrations never change, new ones
// only add. A newer file is refused, never downgraded.
//
// # Concurrency
//
// A DB is safe for concurrent use by many goroutines, with one writer: the
// writes (CreateExperiment, WriteRun) go through a single connection, so
// calls made at the same time wait for each other; call WriteRun from one
// goroutine at a time, as a plan's runner does. Reads run concurrently on a
// pool of connections, also while a write is under way, and see only
// committed runs. Other processes may read the file while latlab writes it.
//
// One process writes a database at a time: Open takes a writer lock, a
// flock(2) on the file results.db-lock beside it that holds the holder's pid,
// host, start time and command line, and keeps it until Close. A second
// Open for writing is refused at once with a *LockedError naming the holder;
// OpenReadOnly takes no lock and is never refused. The kernel lets the lock
// go when its process ends, however it ends: a killed writer leaves the lock
// file behind, but not the lock. Open also refuses, with ErrLocked after 2 s,
// a file on which another connection (a sqlite3 shell, a program without
// the lock) holds a write transaction, so that no work is done for results
// it could not store; a later write waits up to a busy timeout of 10 s for
// such a transaction.
//
// A run that could not be committed is not lost: SavePending keeps it in a
// side file beside the database, results.db.pending-3-17.db for experiment
// 3's run at plan position 17, itself a results database holding a copy of
// the experiment and the run. ImportPending, which latlab run and attack -o
// call when they open the database, takes every side file in, each in one
// transaction, and removes it.
package store
