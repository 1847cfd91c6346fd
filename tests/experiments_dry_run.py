#!/usr/bin/env python3
"""runs/experiments --dry-run must print exactly the planned commands."""
import subprocess
import sys

experiments, lu = sys.argv[1], sys.argv[2]
out = subprocess.run([sys.executable, experiments, "--dry-run", "--quick", "--lu", lu], capture_output=True,
                     text=True, check=True)
lines = [l for l in out.stdout.splitlines() if l.startswith("mpirun")]
repeats, mixes, variants, changing = 3, 3, 5, 3
baselines = repeats * (mixes + 1)  # the unemulated ideal, in every round of every table
expected = baselines + mixes * variants * repeats + changing * repeats + 1
rounds = [i for i, l in enumerate(lines) if "--emulate-speeds" not in l]
checks = {
    "one command per planned run": len(lines) == expected,
    "the summary counts them": f"{expected} runs" in out.stderr,
    "class W with --quick": all(" W " in l for l in lines),
    "every mix emulated": all(sum(f"--emulate-speeds 1,{s}" in l for l in lines) == variants * repeats
                              for s in ("0.444", "0.74", "0.889")),
    "calibrate variants": sum("--weights calibrate" in l for l in lines) == 2 * mixes * repeats,
    "diffusive variants": sum("--balance diffusive" in l for l in lines) == 2 * mixes * repeats + repeats + 1,
    "changing load": sum("@80:1,0.5" in l for l in lines) == changing * repeats + 1,
    "one traced run": sum("--trace" in l for l in lines) == 1,
    "baseline alternated": len(rounds) == baselines and all(b - a in (variants + 1, changing + 1)
                                                            for a, b in zip(rounds, rounds[1:])),
    "nothing ran": "wrote" not in out.stdout,
}
for name, ok in checks.items():
    print(("ok   " if ok else "FAIL ") + name)
sys.exit(0 if all(checks.values()) else 1)
