-- 012: a repro's inputs beside it (docs/protocol.md, "Repro"). Inputs whose
-- torch.save'd bytes pass the runner's FILE_BYTES are not embedded in the
-- script: results.repro_inputs holds their base64 text, which the script
-- reads from a file beside it (GET /cases/{id}/inputs serves it under the
-- name the script reads). NULL: the repro holds its inputs (or has none).
ALTER TABLE results ADD COLUMN repro_inputs TEXT;
