-- What a risk-check verdict reads of a latest scan, stored beside it (Scans/ScanVerdict.ts): the scoring
-- model's version, the scan's symbol, depth, time and outcome, and the assessment's verdict, score, flags and
-- evidence completeness. A batch's cold mints that the cache will not keep are read with this column alone
-- (ScansRepo latestVerdicts), a few hundred bytes a row instead of the evidence and the assessment (kilobytes,
-- parsed by PostgreSQL and again by the server). Written by ScansRepo.record with the assessment, from the same
-- scan; used only when its modelVersion is the reader's, else the row is read in full as before.
-- json, not jsonb: its text as written, output as it is.
alter table latest_scans add column verdict json;

-- Rows with a stored assessment get theirs from it and from the evidence they hold (the same fields a read
-- takes from them); a row whose evidence lacks one of them keeps none and is read in full.
update latest_scans set verdict = json_build_object(
  'modelVersion', assessment->'modelVersion',
  'symbol', evidence->'symbol',
  'scanDepth', evidence->'scanDepth',
  'scannedAt', evidence->'scannedAt',
  'outcome', evidence->'outcome',
  'verdict', assessment->'verdict',
  'safetyScore', assessment->'safetyScore',
  'flags', assessment->'flags',
  'evidenceCompleteness', assessment->'evidenceCompleteness')
where assessment is not null and evidence ?& array['symbol', 'scanDepth', 'scannedAt', 'outcome'];
