-- 006: a key x dtype x device's verdicts across runs, in run order: what
-- /ops' since columns (the first run of a verdict's current streak) and
-- /diff look up per row, an index range each instead of a scan of every run.
CREATE INDEX verdicts_history ON verdicts(key, dtype, device, run_id);
