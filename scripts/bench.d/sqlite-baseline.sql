-- The same job done with the sqlite3 shell: the baseline scripts/bench divides seedbuild's time by.
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
CREATE TABLE county_staging (code TEXT, name TEXT, country TEXT);
CREATE TABLE County (Z_PK INTEGER PRIMARY KEY, code TEXT NOT NULL, name TEXT NOT NULL, country TEXT);
CREATE TABLE postcode_staging (postcode TEXT, county_code TEXT, district TEXT, ward TEXT, country TEXT,
  latitude REAL, longitude REAL, easting INTEGER, northing INTEGER, introduced TEXT, terminated TEXT);
CREATE TABLE Postcode (postcode TEXT NOT NULL, county INTEGER REFERENCES County (Z_PK), district TEXT, ward TEXT,
  country TEXT, latitude REAL, longitude REAL, easting INTEGER, northing INTEGER, introduced TEXT, terminated TEXT);
.import --csv --skip 1 counties.csv county_staging
.import --csv --skip 1 postcodes.csv postcode_staging
BEGIN;
INSERT INTO County (code, name, country) SELECT code, name, country FROM county_staging;
CREATE UNIQUE INDEX County_code ON County (code);
INSERT INTO Postcode SELECT s.postcode, c.Z_PK, s.district, s.ward, s.country, s.latitude, s.longitude, s.easting,
  s.northing, s.introduced, NULLIF(s.terminated, '') FROM postcode_staging s LEFT JOIN County c ON c.code = s.county_code;
DROP TABLE county_staging;
DROP TABLE postcode_staging;
CREATE UNIQUE INDEX Postcode_postcode ON Postcode (postcode);
CREATE INDEX Postcode_district ON Postcode (district);
CREATE INDEX Postcode_county ON Postcode (county);
COMMIT;
ANALYZE;
VACUUM;
