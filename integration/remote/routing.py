"""Checks where the GPU tests ran (integration/remote).

  routing.py KEY=VALUE GPU_WORKER_LOG CPU_WORKER_LOG EXECLOG...

Every TestRunner spawn of a cuda_test asks for KEY=VALUE, except the tests
marked gpu = False (//:nogpu_test here); no compile or link spawn asks for
it. The worker logs (one line per action, with the action's digest) show
that the spawns asking for it ran on the GPU worker only, and that the CPU
worker ran compiles or links.
"""
import re
import sys

from execlog import spawns

HEX = re.compile(r"\b[0-9a-f]{64}\b")


def props(s):
    return {p["name"]: p["value"] for p in (s.get("platform") or {}).get("properties", [])}


def digests(path):
    return set(HEX.findall(open(path, encoding="utf-8").read()))


def main():
    key, value = sys.argv[1].split("=", 1)
    gpu, cpu = digests(sys.argv[2]), digests(sys.argv[3])
    errors, asked, free_tests, builds = [], [], [], []
    for log in sys.argv[4:]:
        for s in spawns(log):
            p = props(s)
            d = (s.get("digest") or {}).get("hash", "")
            wants = p.get(key) == value
            if s.get("mnemonic") == "TestRunner":
                nogpu = "nogpu_test" in (s.get("targetLabel") or "")
                if nogpu and wants:
                    errors.append(f"{s.get('targetLabel')} (gpu = False) asks for {key}={value}")
                elif not nogpu and not wants:
                    errors.append(f"{s.get('targetLabel')}: its test action does not ask for {key}={value}")
                (asked if wants else free_tests).append((s, d))
            else:
                if wants:
                    errors.append(f"{s.get('mnemonic')} {s.get('targetLabel')} asks for {key}={value}: only tests may")
                builds.append((s, d))
    for s, d in asked:
        if not d:
            errors.append(f"{s.get('targetLabel')}: no action digest in the execution log")
        elif d in cpu:
            errors.append(f"{s.get('targetLabel')}: a GPU test ran on the CPU worker")
        elif d not in gpu:
            errors.append(f"{s.get('targetLabel')}: a GPU test is in neither worker's log")
    on_cpu = sum(1 for _, d in builds if d in cpu)
    on_gpu = sum(1 for _, d in builds if d in gpu)
    print(f"{len(asked)} test actions asked for {key}={value}: all on the GPU worker" if not errors else "")
    print(f"{len(free_tests)} test action(s) of gpu = False tests, {sum(1 for _, d in free_tests if d in cpu)} of them on the CPU worker")
    print(f"{len(builds)} compile/link/other actions: {on_cpu} on the CPU worker, {on_gpu} on the GPU worker")
    if not asked:
        errors.append("no test action asked for a GPU")
    if on_cpu == 0:
        errors.append("the CPU worker ran no compile or link")
    for e in errors:
        print("  " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
