-- The APF run every 10 s: load from the run's intervals, filter latency,
-- queue wait and server CPU from its probes (the highest value the 10 s
-- sliding window showed in each 10 s slice).
WITH load AS (
  SELECT idx / 10 AS slice, avg(in_flight_mean) AS in_flight, sum(completed) / 10.0 AS per_s
  FROM intervals WHERE phase = 'measure' GROUP BY 1),
probe AS (
  SELECT t_ns / 10000000000 AS slice,
    max(CASE WHEN series = 'latlab_request_filter_duration_seconds:p90'  AND labels LIKE '%"fairqueue"%' THEN value END) AS fq_p90,
    max(CASE WHEN series = 'latlab_request_filter_duration_seconds:p99'  AND labels LIKE '%"fairqueue"%' THEN value END) AS fq_p99,
    max(CASE WHEN series = 'latlab_request_filter_duration_seconds:p100' AND labels LIKE '%"fairqueue"%' THEN value END) AS fq_p100,
    max(CASE WHEN series = 'latlab_flowcontrol_request_wait_duration_seconds:p99' THEN value END) AS wait_p99,
    max(CASE WHEN series = 'cpu_allowed_percent' AND labels LIKE '%"target"%' THEN value END) AS cpu
  FROM probes GROUP BY 1)
SELECT printf('%3d–%ds', l.slice * 10, l.slice * 10 + 10) AS t, printf('%5.0f', l.in_flight) AS in_flight,
  printf('%5.0f', l.per_s) AS "req/s",
  printf('%6.1f', 1e6 * fq_p90) AS "fq p90 µs", printf('%6.1f', 1e6 * fq_p99) AS "fq p99 µs",
  printf('%7.1f', 1e6 * fq_p100) AS "fq p100 µs", printf('%5.1f', 1e6 * wait_p99) AS "wait p99 µs",
  printf('%4.1f%%', cpu) AS "cpu max"
FROM load l JOIN probe p USING (slice) ORDER BY l.slice;
