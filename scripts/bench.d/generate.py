#!/usr/bin/env python3
"""Writes a deterministic synthetic UK-style postcode dataset for benchmarks.

counties.csv, postcodes.csv (about ten columns, ~100 bytes a row) and model.json, the matching
seedbuild JSON model. Same --rows, --seed and --order give the same bytes.

Orders: "natural" sorts postcodes as people and most exports do (area, then district as a number:
AB1 … AB9, AB10 … AB40), so each area's two-digit districts come after its AB9 and sort below it in
byte order — a few hundred descents in the file, most keys below the highest key before them;
"sorted" is byte order (SQLite's BINARY collation); "shuffled" is random.
"""
import argparse
import json
import os
import random
import sys

AREAS = ["AB", "AL", "B", "BA", "BB", "BD", "BH", "BL", "BN", "BR", "BS", "BT", "CA", "CB", "CF", "CH", "CM", "CO",
         "CR", "CT", "CV", "CW", "DA", "DD", "DE", "DG", "DH", "DL", "DN", "DT", "DY", "E", "EC", "EH", "EN", "EX",
         "FK", "FY", "G", "GL", "GU", "HA", "HD", "HG", "HP", "HR", "HS", "HU", "HX", "IG", "IP", "IV", "KA", "KT",
         "KW", "KY", "L", "LA", "LD", "LE", "LL", "LN", "LS", "LU", "M", "ME", "MK", "ML", "N", "NE", "NG", "NN",
         "NP", "NR", "NW", "OL", "OX", "PA", "PE", "PH", "PL", "PO", "PR", "RG", "RH", "RM", "S", "SA", "SE", "SG",
         "SK", "SL", "SM", "SN", "SO", "SP", "SR", "SS", "ST", "SW", "SY", "TA", "TD", "TF", "TN", "TQ", "TR", "TS",
         "TW", "UB", "W", "WA", "WC", "WD", "WF", "WN", "WR", "WS", "WV", "YO", "ZE"]
UNIT = "ABDEFGHJLNPQRSTUWXYZ"
COUNTRIES = [("E92000001", "England"), ("S92000003", "Scotland"), ("W92000004", "Wales"), ("N92000002", "Northern Ireland")]
MODEL = {
    "name": "BenchPostcodes", "versionIdentifiers": ["1"],
    "configurations": [{"name": "Seed", "entities": ["County", "Postcode"]}],
    "entities": [
        {"name": "County",
         "attributes": [{"name": "code", "type": "String", "optional": False}, {"name": "name", "type": "String", "optional": False},
                        {"name": "country", "type": "String"}],
         "relationships": [{"name": "postcodes", "destination": "Postcode", "inverse": "county", "toMany": True, "deleteRule": "Cascade"}],
         "uniquenessConstraints": [["code"]]},
        {"name": "Postcode",
         "attributes": [{"name": "postcode", "type": "String", "optional": False}, {"name": "district", "type": "String"},
                        {"name": "ward", "type": "String"}, {"name": "country", "type": "String"},
                        {"name": "latitude", "type": "Double"}, {"name": "longitude", "type": "Double"},
                        {"name": "easting", "type": "Integer 32"}, {"name": "northing", "type": "Integer 32"},
                        {"name": "introduced", "type": "Date"}, {"name": "terminated", "type": "Date"}],
         "relationships": [{"name": "county", "destination": "County", "inverse": "postcodes", "deleteRule": "Nullify"}],
         "uniquenessConstraints": [["postcode"]],
         "indexes": [{"name": "byDistrict", "elements": [{"property": "district"}]}]},
    ],
}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=2_700_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--order", choices=["natural", "sorted", "shuffled"], default="natural")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    os.makedirs(args.out, exist_ok=True)

    counties = []
    for index in range(150):
        country = COUNTRIES[index % 4] if index % 10 == 0 else COUNTRIES[0]
        prefix = {"E92000001": "E", "S92000003": "S", "W92000004": "W", "N92000002": "N"}[country[0]]
        name = f"County {index}" if index % 7 else f"County {index}, City of"
        counties.append((f"{prefix}1{index:07d}", name, country[1]))
    with open(os.path.join(args.out, "counties.csv"), "w", newline="") as f:
        f.write("code,name,country\n")
        for code, name, country in counties:
            f.write(f'{code},"{name}",{country}\n' if "," in name else f"{code},{name},{country}\n")

    # Unique postcodes: area + district number (+ a letter in a few) + sector + unit. Each area has
    # its own number of districts, as real ones do (B1–B99, HS1–HS9), enough for 10M unique codes.
    districts = {area: rng.randint(6, 99) for area in AREAS}
    postcodes = set()
    while len(postcodes) < args.rows:
        area = rng.choice(AREAS)
        district = rng.randint(1, districts[area])
        suffix = rng.choice(UNIT) if district < 10 and rng.random() < 0.1 else ""
        postcodes.add((area, district, suffix, f"{rng.randint(0, 9)}{rng.choice(UNIT)}{rng.choice(UNIT)}"))
    text = lambda code: f"{code[0]}{code[1]}{code[2]} {code[3]}"
    if args.order == "natural":
        ordered = [text(code) for code in sorted(postcodes)]
    else:
        ordered = sorted(text(code) for code in postcodes)
        if args.order == "shuffled":
            rng.shuffle(ordered)
    encoded = [code.encode() for code in ordered]
    descents = sum(1 for a, b in zip(encoded, encoded[1:]) if b < a)
    highest, below = b"", 0
    for code in encoded:
        if code < highest:
            below += 1
        else:
            highest = code
    print(f"{args.order}: {descents} keys below the key before them, {below} below the highest before them", file=sys.stderr)
    with open(os.path.join(args.out, "postcodes.csv"), "w", newline="", buffering=1 << 20) as f:
        f.write("postcode,county_code,district,ward,country,latitude,longitude,easting,northing,introduced,terminated\n")
        lines = []
        for postcode in ordered:
            code = counties[rng.randrange(150)][0]
            district = f"District {rng.randrange(400)}"
            ward = f'"Ward {rng.randrange(9000)}, North"' if rng.random() < 0.05 else f"Ward {rng.randrange(9000)}"
            country = COUNTRIES[0][0]
            latitude = 49.9 + rng.random() * 10.9
            longitude = -8.2 + rng.random() * 10.0
            introduced = f"{rng.randint(1980, 2024)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
            terminated = "" if rng.random() < 0.8 else f"{rng.randint(1990, 2024)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
            lines.append(f"{postcode},{code},{district},{ward},{country},{latitude:.6f},{longitude:.6f},"
                         f"{rng.randint(0, 700000)},{rng.randint(0, 1300000)},{introduced},{terminated}\n")
            if len(lines) >= 10000:
                f.write("".join(lines))
                lines.clear()
        f.write("".join(lines))
    with open(os.path.join(args.out, "model.json"), "w") as f:
        json.dump(MODEL, f, indent=2)


if __name__ == "__main__":
    main()
