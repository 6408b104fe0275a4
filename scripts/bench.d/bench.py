#!/usr/bin/env python3
"""Measures seedbuild against the sqlite3-and-gzip script a user would write instead, in one run.

For each input order (natural and byte order by default) and each store layout, `--repeat` rounds
alternate the script and seedbuild; each ratio is the median of the rounds' ratios. Printed:
the whole build (ingest, build, compress, manifest) against `sqlite3` + `gzip -6`; the load phase in
rows per second; compression against `gzip -6` and `pigz -6 -p 2` (speed and size); peak memory;
`seedbuild verify` against `gunzip` + `PRAGMA quick_check` of the same artifact; `seedbuild fetch`
from a folder in MB of store per second. Called by scripts/bench, which builds the binary first.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# Data versions of the nights after the first build (whose version is its build time, yyyyMMddHHmm): above it.
NIGHT_VERSION = 300_000_000_000


def timed(command, log, stdout=subprocess.DEVNULL, cwd=None, stdin=None):
    """Runs a command under /usr/bin/time -v; returns (wall seconds, peak KiB). Stops the script on failure.

    The disk is synced first (not timed): the previous step's writes (a 370 MB store, three artifacts)
    would otherwise be written back during this one and slow its own fsync by a varying amount
    (1M rows: fetch 0.74 s after `sync`, 0.74-1.00 s right after writing 400 MB)."""
    os.sync()
    with open(log, "w") as err:
        result = subprocess.run(["/usr/bin/time", "-v"] + command, stdout=stdout, stderr=err, cwd=cwd, stdin=stdin)
    text = open(log).read()
    if result.returncode != 0:
        sys.exit(f"failed ({result.returncode}): {' '.join(command)}\n{text[-3000:]}")
    wall = peak = None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("Elapsed (wall clock) time"):
            parts = line.rsplit(": ", 1)[1].split(":")
            wall = sum(float(x) * 60 ** i for i, x in enumerate(reversed(parts)))
        elif line.startswith("Maximum resident set size"):
            peak = int(line.rsplit(": ", 1)[1])
    return wall, peak


def shell(script, log):
    return timed(["sh", "-c", script], log)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--binary", required=True)
    parser.add_argument("--rows", type=int, default=2_700_000)
    parser.add_argument("--orders", default="natural,sorted")
    parser.add_argument("--layouts", default="coredata,plain")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--work", required=True)
    parser.add_argument("--nightly", action="store_true",
                        help="also measure the next night's build following this one as its base (mutate.py's changes)")
    parser.add_argument("--nights", type=int, default=1,
                        help="with --nightly: nights published into a channel before the one measured, which then "
                             "follows the channel and composes its deltas (8 gives the measured night 7 deltas)")
    args = parser.parse_args()
    work = args.work
    os.makedirs(work, exist_ok=True)
    logs = os.path.join(work, "logs")
    os.makedirs(logs, exist_ok=True)
    layouts = args.layouts.split(",")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the start", flush=True)
    for order in args.orders.split(","):
        data = os.path.join(work, f"data-{args.rows}-{order}")
        if not os.path.exists(os.path.join(data, "postcodes.csv")):
            print(f"generating {args.rows:,} {order} rows in {data}", file=sys.stderr, flush=True)
            subprocess.run([sys.executable, os.path.join(HERE, "generate.py"), "--rows", str(args.rows), "--order", order, "--out", data], check=True)
        measure_order(args, data, order, layouts, work, logs)
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


def measure_order(args, data, order, layouts, work, logs):
    rows = args.rows
    size = os.path.getsize(os.path.join(data, "postcodes.csv")) + os.path.getsize(os.path.join(data, "counties.csv"))
    model = os.path.join(data, "model.json")
    rounds = []
    for round_index in range(args.repeat):
        r = {}
        base = os.path.join(work, "baseline.sqlite")
        for path in [base, base + ".gz"]:
            if os.path.exists(path):
                os.remove(path)
        with open(os.path.join(HERE, "sqlite-baseline.sql")) as script:
            r["base_s"], r["base_kib"] = timed(["sqlite3", base], os.path.join(logs, "baseline.log"), cwd=data, stdin=script)
        r["base_gz_s"], _ = shell(f"gzip -6 -c '{base}' > '{base}.gz'", os.path.join(logs, "baseline-gzip.log"))
        r["base_store"], r["base_gz"] = os.path.getsize(base), os.path.getsize(base + ".gz")
        r["gunzip_check_s"], _ = shell(
            f"gunzip -c '{base}.gz' > '{work}/check.sqlite' && sqlite3 '{work}/check.sqlite' 'PRAGMA quick_check' > /dev/null",
            os.path.join(logs, "gunzip-check.log"))
        for layout in layouts:
            out = os.path.join(work, f"out-{layout}")
            shutil.rmtree(out, ignore_errors=True)
            build_json = os.path.join(logs, f"build-{layout}.json")
            with open(build_json, "w") as stdout:
                s, kib = timed([args.binary, "build", os.path.join(data, "postcodes.csv"), "--model", model, "--out", out,
                                "--dataset", "bench", "--json", "--format", layout], os.path.join(logs, f"build-{layout}.log"), stdout=stdout)
            built = json.load(open(build_json))
            phases = {t["phase"]: t["seconds"] for t in built["timings"]}
            store = os.path.join(out, "bench.sqlite")
            artifact = store + ".gz"
            # The compression on its own, from the same store: seedbuild compress against gzip -6 and pigz.
            cs, ckib = timed([args.binary, "compress", store], os.path.join(logs, f"compress-{layout}.log"))
            gz_s, _ = shell(f"gzip -6 -c '{store}' > '{work}/gzip6.gz'", os.path.join(logs, f"gzip6-{layout}.log"))
            pigz_s, _ = shell(f"pigz -6 -p 2 -c '{store}' > '{work}/pigz6.gz'", os.path.join(logs, f"pigz6-{layout}.log"))
            vs, vkib = timed([args.binary, "verify", os.path.join(out, "manifest.json"), "--model", model],
                             os.path.join(logs, f"verify-{layout}.log"))
            # Fetch: the release published to a folder, installed into an app's folder.
            dist, app = os.path.join(work, f"dist-{layout}"), os.path.join(work, f"app-{layout}")
            shutil.rmtree(dist, ignore_errors=True)
            shutil.rmtree(app, ignore_errors=True)
            timed([args.binary, "publish", out, "--to", dist], os.path.join(logs, f"publish-{layout}.log"))
            channel = next(root for root, _, files in os.walk(dist) if "latest.json" in files)
            fs, fkib = timed([args.binary, "fetch", "file://" + channel + "/", "--to", app, "--allow-unsigned", "--model", model],
                             os.path.join(logs, f"fetch-{layout}.log"))
            nightly = {}
            if args.nightly:
                nightly = measure_nightly(args, data, model, layout, out, work, logs)
            r[layout] = {
                "s": s, "kib": max(kib, ckib), "load": phases.get("load Postcode", 0) + phases.get("load County", 0),
                # Core Data's layout builds the key's unique index right after a load whose keys left
                # their order (sorted input builds it in the "indexes" phase): shown beside the load.
                "key_index": sum(v for k, v in phases.items() if k.startswith("key index ")),
                "store": os.path.getsize(store), "artifact": os.path.getsize(artifact),
                "compress_s": cs, "gzip6_s": gz_s, "pigz_s": pigz_s,
                "gzip6": os.path.getsize(os.path.join(work, "gzip6.gz")), "pigz": os.path.getsize(os.path.join(work, "pigz6.gz")),
                "verify_s": vs, "verify_kib": vkib, "fetch_s": fs, "fetch_kib": fkib, **nightly,
            }
        rounds.append(r)
        print(f"  {order} round {round_index + 1}/{args.repeat} done", file=sys.stderr, flush=True)
    report(rows, size, order, layouts, rounds)


def measure_nightly(args, data, model, layout, out, work, logs):
    """The next night: the script on the changed export, against seedbuild following the night before.

    With one night, the base is the first build's store. With --nights N, the first build and the
    N-1 nights after it are published into a folder channel (not timed), each following the channel
    and publishing its deltas; night N is measured following the channel, so it fetches the current
    release as its base (reported apart) and composes the deltas that release lists. Then an app
    holding night N-1 fetches night N (by delta), against a full fetch of night N into an empty folder."""
    exports = [data]
    for night in range(1, args.nights + 1):
        folder = os.path.join(data, f"night-{night + 1}")
        if not os.path.exists(os.path.join(folder, "postcodes.csv")):
            os.makedirs(folder, exist_ok=True)
            subprocess.run([sys.executable, os.path.join(HERE, "mutate.py"), os.path.join(exports[-1], "postcodes.csv"),
                            os.path.join(folder, "postcodes.csv"), "--seed", str(night + 1)], check=True)
            shutil.copy(os.path.join(data, "counties.csv"), folder)
        exports.append(folder)
    night = exports[-1]
    base = os.path.join(work, "baseline-night.sqlite")
    for path in [base, base + ".gz"]:
        if os.path.exists(path):
            os.remove(path)
    with open(os.path.join(HERE, "sqlite-baseline.sql")) as script:
        script_s, _ = timed(["sqlite3", base], os.path.join(logs, "baseline-night.log"), cwd=night, stdin=script)
    gzip_s, _ = shell(f"gzip -6 -c '{base}' > '{base}.gz'", os.path.join(logs, "baseline-night-gzip.log"))
    chain = os.path.join(work, f"chain-{layout}")
    app = os.path.join(work, f"app-night-{layout}")
    following_base = os.path.join(out, "bench.sqlite")
    if args.nights > 1:
        shutil.rmtree(chain, ignore_errors=True)
        shutil.rmtree(app, ignore_errors=True)
        timed([args.binary, "publish", out, "--to", chain], os.path.join(logs, f"chain-publish-{layout}.log"))
        channel = next(root for root, _, files in os.walk(chain) if "latest.json" in files)
        for index, export in enumerate(exports[1:-1], start=2):
            built = os.path.join(work, f"chain-out-{layout}")
            shutil.rmtree(built, ignore_errors=True)
            timed([args.binary, "build", os.path.join(export, "postcodes.csv"), "--model", model, "--out", built, "--dataset", "bench",
                   "--format", layout, "--base", channel, "--data-version", str(NIGHT_VERSION + index)], os.path.join(logs, f"chain-build-{layout}.log"))
            timed([args.binary, "publish", built, "--to", chain], os.path.join(logs, f"chain-publish-{layout}.log"))
        # The app holds the night before the one measured.
        timed([args.binary, "fetch", "file://" + channel + "/", "--to", app, "--allow-unsigned", "--model", model],
              os.path.join(logs, f"fetch-night-before-{layout}.log"))
        following_base = channel
    following = os.path.join(work, f"out-night-{layout}")
    shutil.rmtree(following, ignore_errors=True)
    build_json = os.path.join(logs, f"build-night-{layout}.json")
    with open(build_json, "w") as stdout:
        s, kib = timed([args.binary, "build", os.path.join(night, "postcodes.csv"), "--model", model, "--out", following,
                        "--dataset", "bench", "--json", "--format", layout, "--base", following_base,
                        "--data-version", str(NIGHT_VERSION + args.nights + 1)],
                       os.path.join(logs, f"build-night-{layout}.log"), stdout=stdout)
    built = json.load(open(build_json))
    phases = {t["phase"]: t["seconds"] for t in built["timings"]}
    result = {"night_s": s, "night_script_s": script_s + gzip_s, "night_kib": kib,
              "night_keys_s": sum(v for k, v in phases.items() if k.startswith("keys after the base")),
              "night_base_s": phases.get("base release", 0), "night_deltas_s": sum(v for k, v in phases.items() if k.startswith("delta")),
              "night_artifact": built["artifact"]["bytes"],
              "night_deltas": {d["fromDataVersion"]: d["bytes"] for d in built.get("deltas", [])}}
    if args.nights > 1:
        timed([args.binary, "publish", following, "--to", chain], os.path.join(logs, f"chain-publish-{layout}.log"))
        fetch_json = os.path.join(logs, f"fetch-delta-{layout}.json")
        with open(fetch_json, "w") as stdout:
            ds, dkib = timed([args.binary, "fetch", "file://" + channel + "/", "--to", app, "--allow-unsigned", "--model", model, "--json"],
                             os.path.join(logs, f"fetch-delta-{layout}.log"), stdout=stdout)
        fetched = json.load(open(fetch_json))
        full_app = os.path.join(work, f"app-night-full-{layout}")
        shutil.rmtree(full_app, ignore_errors=True)
        fs, _ = timed([args.binary, "fetch", "file://" + channel + "/", "--to", full_app, "--allow-unsigned", "--model", model],
                      os.path.join(logs, f"fetch-night-full-{layout}.log"))
        result.update({"apply_s": ds, "apply_kib": dkib, "apply_via": fetched.get("via"), "apply_fallback": fetched.get("fallback"),
                       "apply_bytes": fetched.get("downloadedBytes"), "full_fetch_s": fs})
    return result


def median(values):
    return statistics.median(values)


def report(rows, size, order, layouts, rounds):
    m = lambda key: median([r[key] for r in rounds])
    base_total = m("base_s") + m("base_gz_s")
    print(f"\n{order} order: {rows:,} postcode rows, {size / 1e6:.0f} MB of CSV; medians of {len(rounds)} alternating rounds")
    print(f"{'':20}{'build s':>9}{'load rows/s':>13}{'peak MiB':>10}{'store MB':>10}{'total s':>9}{'artifact MB':>13}")
    print(f"{'sqlite3 + gzip -6':20}{m('base_s'):9.2f}{'':>13}{m('base_kib') / 1024:10.1f}{m('base_store') / 1e6:10.1f}"
          f"{base_total:9.2f}{m('base_gz') / 1e6:13.1f}")
    for layout in layouts:
        ml = lambda key: median([r[layout][key] for r in rounds])
        print(f"{'seedbuild ' + layout:20}{ml('s'):9.2f}{rows / ml('load'):13,.0f}{ml('kib') / 1024:10.1f}{ml('store') / 1e6:10.1f}"
              f"{ml('s'):9.2f}{ml('artifact') / 1e6:13.1f}")
    print("ratios (median of the rounds' own ratios):")
    for layout in layouts:
        ratio = lambda f: median([f(r, r[layout]) for r in rounds])
        total = ratio(lambda r, l: l["s"] / (r["base_s"] + r["base_gz_s"]))
        speed = ratio(lambda r, l: l["pigz_s"] / l["compress_s"])
        gz_speed = ratio(lambda r, l: l["gzip6_s"] / l["compress_s"])
        size_ratio = ratio(lambda r, l: l["artifact"] / l["gzip6"])
        verify = ratio(lambda r, l: l["verify_s"] / r["gunzip_check_s"])
        fetch = median([l["store"] / 1e6 / l["fetch_s"] for l in (r[layout] for r in rounds)])
        load = median([rows / r[layout]["load"] for r in rounds])
        load_indexed = median([rows / (r[layout]["load"] + r[layout]["key_index"]) for r in rounds])
        peak = max(max(r[layout]["kib"], r[layout]["verify_kib"], r[layout]["fetch_kib"]) for r in rounds) / 1024
        print(f"  {layout}: build + compress {total:.2f}x sqlite3 + gzip -6 (target <= 0.5); load {load:,.0f} rows/s (>= 800,000); "
              f"peak {peak:.1f} MiB (< 64)")
        if load_indexed < load:
            print(f"  {'':{len(layout)}}  load and the key's unique index built after it: {load_indexed:,.0f} rows/s")
        print(f"  {'':{len(layout)}}  compression {speed:.2f}x pigz -6 -p 2's speed (>= 1), {gz_speed:.2f}x gzip -6's; artifact {size_ratio:.3f}x gzip -6's (<= 1.0)")
        print(f"  {'':{len(layout)}}  verify {verify:.2f}x gunzip + quick_check (<= 1.0); fetch from a folder {fetch:.0f} MB/s of store (>= 200)")
        if "night_s" in rounds[0][layout]:
            night = ratio(lambda r, l: l["night_s"] / l["night_script_s"])
            keys = median([r[layout]["night_keys_s"] for r in rounds])
            print(f"  {'':{len(layout)}}  next night following this build as its base: build + compress {night:.2f}x the script's (target <= 0.5), "
                  f"{keys:.2f} s numbering rows after the base")
            last = rounds[-1][layout]
            if last.get("night_deltas"):
                base_s = median([r[layout]["night_base_s"] for r in rounds])
                without = ratio(lambda r, l: (l["night_s"] - l["night_base_s"]) / l["night_script_s"])
                shares = ", ".join(f"from {v}: {b:,} B ({100 * b / last['night_artifact']:.3f}%)" for v, b in sorted(last["night_deltas"].items(), reverse=True))
                print(f"  {'':{len(layout)}}  that night with {len(last['night_deltas'])} deltas: {without:.2f}x the script's without the base's fetch "
                      f"({base_s:.2f} s, counted in the ratio above); deltas (target <= 0.5% of the artifact): {shares}")
            if "apply_s" in last:
                apply = ratio(lambda r, l: l["apply_s"] / l["full_fetch_s"])
                print(f"  {'':{len(layout)}}  fetch of that night by an app holding the night before: via {last['apply_via']}"
                      f"{' (' + str(last['apply_fallback']) + ')' if last.get('apply_fallback') else ''}, {last['apply_bytes'] or 0:,} bytes downloaded, "
                      f"{apply:.2f}x a full fetch's time (target <= 0.2), peak {last['apply_kib'] / 1024:.1f} MiB (< 64)")

if __name__ == "__main__":
    main()
