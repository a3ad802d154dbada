-- 011: a lost case run again alone (docs/design.md, "A hang or crash is
-- confirmed alone"). A case that gave no result (status timeout or crash)
-- runs again, once every case of its run is done, in a fresh runner with
-- nothing else on its device and a longer deadline. results.alone:
-- 'reproduced' (it was lost again: the timeout or crash stands, charged as
-- usual) or 'not_reproduced' (it gave a result alone: that result is the
-- case's, and alone_detail says how it was lost the first time); NULL: not
-- run alone (not lost, or stored before this migration).
ALTER TABLE results ADD COLUMN alone TEXT CHECK (alone IS NULL OR alone IN
    ('reproduced', 'not_reproduced'));
ALTER TABLE results ADD COLUMN alone_detail TEXT;
