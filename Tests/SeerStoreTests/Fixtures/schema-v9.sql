-- The schema of a SQLite store as Seer made it before the store was written once over SQL
-- (the steps v1-registry to v9-partial-indexes, verbatim), with rows saved between the steps.
CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
-- v1-registry
CREATE TABLE brand (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, requiresSignature INTEGER);
CREATE TABLE brandKey (
    kid TEXT PRIMARY KEY, brand TEXT NOT NULL REFERENCES brand(id) ON DELETE CASCADE,
    algorithm TEXT NOT NULL, publicKey TEXT NOT NULL, status TEXT NOT NULL);
CREATE INDEX brandKey_brand ON brandKey(brand);
CREATE TABLE product (
    gtin TEXT PRIMARY KEY, name TEXT NOT NULL, brand TEXT NOT NULL REFERENCES brand(id),
    category TEXT NOT NULL, markets TEXT NOT NULL);
CREATE TABLE serial (
    gtin TEXT NOT NULL REFERENCES product(gtin), serial TEXT NOT NULL, status TEXT NOT NULL,
    PRIMARY KEY (gtin, serial)) WITHOUT ROWID;
CREATE TABLE plateOwner (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, plate TEXT NOT NULL,
    canonicalPlate TEXT NOT NULL, region TEXT NOT NULL);
CREATE INDEX plateOwner_plate ON plateOwner(canonicalPlate);
CREATE TABLE charger (
    id TEXT PRIMARY KEY, serial TEXT NOT NULL, location TEXT NOT NULL, status TEXT NOT NULL);
INSERT INTO grdb_migrations VALUES ('v1-registry');
-- v2-history
CREATE TABLE scan (
    id INTEGER PRIMARY KEY, time REAL NOT NULL, device TEXT, mode TEXT NOT NULL, sourceFile TEXT,
    symbology TEXT, payload TEXT NOT NULL, format TEXT, gtin TEXT, serial TEXT, lot TEXT,
    expiry TEXT, productName TEXT, brand TEXT, category TEXT, verdict TEXT NOT NULL,
    reasons TEXT NOT NULL, notes TEXT, latitude REAL, longitude REAL, country TEXT, batchID TEXT);
CREATE INDEX scan_time ON scan(time);
CREATE INDEX scan_item ON scan(gtin, serial, time);
CREATE INDEX scan_category ON scan(category, time);
CREATE VIRTUAL TABLE scanSearch USING fts5(
    payload, device, sourceFile, symbology, gtin, serial, lot, productName, brand, category,
    verdict, reasons, notes, country, mode, format, expiry, batchID,
    content='scan', content_rowid='id', tokenize="unicode61 tokenchars '-_'", prefix='1 2 3');
CREATE VIRTUAL TABLE scanSearchVocab USING fts5vocab(scanSearch, row);
CREATE TRIGGER scan_ai AFTER INSERT ON scan BEGIN
    INSERT INTO scanSearch(rowid, payload, device, sourceFile, symbology, gtin, serial, lot,
        productName, brand, category, verdict, reasons, notes, country, mode, format, expiry, batchID)
    VALUES (new.id, new.payload, new.device, new.sourceFile, new.symbology, new.gtin, new.serial,
        new.lot, new.productName, new.brand, new.category, new.verdict, new.reasons, new.notes,
        new.country, new.mode, new.format, new.expiry, new.batchID);
END;
CREATE TRIGGER scan_ad AFTER DELETE ON scan BEGIN
    INSERT INTO scanSearch(scanSearch, rowid, payload, device, sourceFile, symbology, gtin, serial,
        lot, productName, brand, category, verdict, reasons, notes, country, mode, format, expiry,
        batchID)
    VALUES ('delete', old.id, old.payload, old.device, old.sourceFile, old.symbology, old.gtin,
        old.serial, old.lot, old.productName, old.brand, old.category, old.verdict, old.reasons,
        old.notes, old.country, old.mode, old.format, old.expiry, old.batchID);
END;
CREATE TABLE recentSearch (text TEXT PRIMARY KEY, usedAt REAL NOT NULL);
CREATE TABLE setting (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO grdb_migrations VALUES ('v2-history');
-- v3-inbox
CREATE TABLE inbox (
    id INTEGER PRIMARY KEY, recipient TEXT NOT NULL REFERENCES plateOwner(id),
    text TEXT NOT NULL, preset TEXT, sentAt REAL NOT NULL);
CREATE INDEX inbox_recipient ON inbox(recipient, sentAt);
INSERT INTO grdb_migrations VALUES ('v3-inbox');
-- v4-statistics
CREATE INDEX scan_verdict ON scan(verdict, category);
INSERT INTO grdb_migrations VALUES ('v4-statistics');
-- v5-reports
CREATE TABLE report (
    id INTEGER PRIMARY KEY, scan INTEGER NOT NULL REFERENCES scan(id),
    reason TEXT, reportedAt REAL NOT NULL);
CREATE INDEX report_scan ON report(scan);
INSERT INTO grdb_migrations VALUES ('v5-reports');
-- v6-batches
CREATE TABLE batchRun (
    id TEXT PRIMARY KEY, key TEXT NOT NULL, startedAt REAL NOT NULL, processed INTEGER NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0);
CREATE INDEX batchRun_key ON batchRun(key, finished, startedAt);
CREATE INDEX scan_batch ON scan(batchID);
INSERT INTO grdb_migrations VALUES ('v6-batches');
-- v7-apikeys
CREATE TABLE IF NOT EXISTS apiKey (
    id TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, role TEXT NOT NULL, name TEXT, recipient TEXT,
    createdAt REAL NOT NULL, revokedAt REAL);
INSERT INTO grdb_migrations VALUES ('v7-apikeys');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000000, 'single', 'https://example.com/old-0', '09506000134352', 'S0', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000001, 'single', 'https://example.com/old-1', '09506000134352', 'S1', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000002, 'single', 'https://example.com/old-2', '09506000134352', 'S2', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000003, 'single', 'https://example.com/old-3', '09506000134352', 'S3', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000004, 'single', 'https://example.com/old-4', '09506000134352', 'S4', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000005, 'single', 'https://example.com/old-5', '09506000134352', 'S5', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000006, 'single', 'https://example.com/old-6', '09506000134352', 'S6', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000007, 'single', 'https://example.com/old-7', '09506000134352', 'S7', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000008, 'single', 'https://example.com/old-8', '09506000134352', 'S8', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000009, 'single', 'https://example.com/old-9', '09506000134352', 'S9', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000010, 'single', 'https://example.com/old-10', '09506000134352', 'S10', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000011, 'single', 'https://example.com/old-11', '09506000134352', 'S11', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000012, 'single', 'https://example.com/old-12', '09506000134352', 'S12', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000013, 'single', 'https://example.com/old-13', '09506000134352', 'S13', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000014, 'single', 'https://example.com/old-14', '09506000134352', 'S14', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000015, 'single', 'https://example.com/old-15', '09506000134352', 'S15', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000016, 'single', 'https://example.com/old-16', '09506000134352', 'S16', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000017, 'single', 'https://example.com/old-17', '09506000134352', 'S17', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000018, 'single', 'https://example.com/old-18', '09506000134352', 'S18', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000019, 'single', 'https://example.com/old-19', '09506000134352', 'S19', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000020, 'single', 'https://example.com/old-20', '09506000134352', 'S20', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000021, 'single', 'https://example.com/old-21', '09506000134352', 'S21', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000022, 'single', 'https://example.com/old-22', '09506000134352', 'S22', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000023, 'single', 'https://example.com/old-23', '09506000134352', 'S23', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000024, 'single', 'https://example.com/old-24', '09506000134352', 'S24', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000025, 'single', 'https://example.com/old-25', '09506000134352', 'S25', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000026, 'single', 'https://example.com/old-26', '09506000134352', 'S26', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000027, 'single', 'https://example.com/old-27', '09506000134352', 'S27', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000028, 'single', 'https://example.com/old-28', '09506000134352', 'S28', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000029, 'single', 'https://example.com/old-29', '09506000134352', 'S29', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000030, 'single', 'https://example.com/old-30', '09506000134352', 'S30', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000031, 'single', 'https://example.com/old-31', '09506000134352', 'S31', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000032, 'single', 'https://example.com/old-32', '09506000134352', 'S32', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000033, 'single', 'https://example.com/old-33', '09506000134352', 'S33', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000034, 'single', 'https://example.com/old-34', '09506000134352', 'S34', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000035, 'single', 'https://example.com/old-35', '09506000134352', 'S35', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000036, 'single', 'https://example.com/old-36', '09506000134352', 'S36', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000037, 'single', 'https://example.com/old-37', '09506000134352', 'S37', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000038, 'single', 'https://example.com/old-38', '09506000134352', 'S38', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO scan(time, mode, payload, gtin, serial, category, verdict, reasons) VALUES (1800000039, 'single', 'https://example.com/old-39', '09506000134352', 'S39', 'cosmetics', 'unknown', '["unknownProduct"]');
INSERT INTO report(scan, reason, reportedAt) VALUES (3, 'fake', 1800000100);
INSERT INTO recentSearch(text, usedAt) VALUES ('old', 1800000200);
INSERT INTO apiKey(id, hash, role, name, createdAt) VALUES ('0a0b0c0d', 'abababababababababababababababababababababababababababababababab', 'device', 'till-1', 1800000300);
-- v8-search-groups
DROP TRIGGER scan_ai;
DROP TRIGGER scan_ad;
CREATE TABLE searchIndexState (
    id INTEGER PRIMARY KEY CHECK (id = 1), indexedThrough INTEGER NOT NULL);
INSERT INTO searchIndexState(id, indexedThrough) VALUES (1, (SELECT IFNULL(MAX(id), 0) FROM scan));
CREATE TRIGGER scan_ad AFTER DELETE ON scan
WHEN old.id <= (SELECT indexedThrough FROM searchIndexState) BEGIN
    INSERT INTO scanSearch(scanSearch, rowid, payload, device, sourceFile, symbology, gtin, serial, lot, productName, brand, category, verdict, reasons, notes, country, mode, format, expiry, batchID)
    VALUES ('delete', old.id, old.payload, old.device, old.sourceFile, old.symbology, old.gtin,
        old.serial, old.lot, old.productName, old.brand, old.category, old.verdict, old.reasons,
        old.notes, old.country, old.mode, old.format, old.expiry, old.batchID);
    UPDATE searchIndexState SET indexedThrough = MIN(indexedThrough, (SELECT IFNULL(MAX(id), 0) FROM scan));
END;
INSERT INTO grdb_migrations VALUES ('v8-search-groups');
-- v9-partial-indexes
DROP INDEX scan_item;
CREATE INDEX scan_item ON scan(gtin, serial, time) WHERE gtin IS NOT NULL;
DROP INDEX scan_category;
CREATE INDEX scan_category ON scan(category, time) WHERE category IS NOT NULL;
DROP INDEX scan_batch;
CREATE INDEX scan_batch ON scan(batchID) WHERE batchID IS NOT NULL;
INSERT INTO grdb_migrations VALUES ('v9-partial-indexes');
