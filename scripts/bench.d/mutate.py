#!/usr/bin/env python3
"""Makes the next night's export of a generated postcode file: 0.1% of rows updated (their ward),
0.05% added next to a neighbour, 0.02% removed. Deterministic for the same input and --seed.

  mutate.py IN.csv OUT.csv [--seed N]
"""
import argparse
import random


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source")
    parser.add_argument("target")
    parser.add_argument("--seed", type=int, default=2)
    args = parser.parse_args()
    random.seed(args.seed)
    with open(args.source) as f:
        header = f.readline()
        rows = f.read().splitlines()
    count = len(rows)
    for index in sorted(random.sample(range(len(rows)), count // 5000), reverse=True):
        del rows[index]
    ward = header.strip().split(",").index("ward")
    for index in random.sample(range(len(rows)), count // 1000):
        fields = rows[index].split(",")
        fields[ward] += " North"
        rows[index] = ",".join(fields)
    taken = {row.split(",", 1)[0] for row in rows}
    for index in sorted(random.sample(range(len(rows)), count // 2000), reverse=True):
        fields = rows[index].split(",")
        # A new unit beside its neighbour: the same sector, a unit letter not taken yet.
        free = [fields[0][:-1] + unit for unit in "ZYXWVUTSRQPNMLKJHGFEDBA" if fields[0][:-1] + unit not in taken]
        if not free:
            continue
        taken.add(free[0])
        fields[0] = free[0]
        rows.insert(index + 1, ",".join(fields))
    with open(args.target, "w") as f:
        f.write(header)
        f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
