-- 009: the deployment modes' verdicts per key x dtype. The trace class runs
-- a key's case under torch.compile(fullgraph=True), the graph class captures
-- it in a CUDA graph and replays it (probes/modes.c, docs/protocol.md); their
-- cases fold apart from the eager ones into these columns: the verdict of
-- the mode (verified, broken, hazard, inconclusive), the reason, detail and
-- severity of its evidence and the evidence's case. NULL verdict: the run
-- screened no case of the key x dtype in that mode (or none applied), so a
-- list asked for mode=compile or mode=cudagraph withholds the name.
ALTER TABLE verdicts ADD COLUMN compile_verdict TEXT;
ALTER TABLE verdicts ADD COLUMN compile_reason TEXT;
ALTER TABLE verdicts ADD COLUMN compile_detail TEXT;
ALTER TABLE verdicts ADD COLUMN compile_severity TEXT;
ALTER TABLE verdicts ADD COLUMN compile_case INTEGER;
ALTER TABLE verdicts ADD COLUMN cudagraph_verdict TEXT;
ALTER TABLE verdicts ADD COLUMN cudagraph_reason TEXT;
ALTER TABLE verdicts ADD COLUMN cudagraph_detail TEXT;
ALTER TABLE verdicts ADD COLUMN cudagraph_severity TEXT;
ALTER TABLE verdicts ADD COLUMN cudagraph_case INTEGER;
