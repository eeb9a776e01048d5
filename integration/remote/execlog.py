"""Reads Bazel's --execution_log_json_file (a stream of SpawnExec objects).

  execlog.py LOG                 every spawn ran remotely: a summary, exit 1 if
                                 one ran anywhere else (or the log is empty)
  execlog.py LOG --all-hits      every spawn was a remote cache hit
  execlog.py --same-outputs A B  the nvcc and C++ compile outputs both logs
                                 have are bit-identical (same digests)
"""
import collections
import json
import sys

REMOTE = {"remote", "remote cache hit"}
COMPARED = {"NvccCompile", "NvccDeviceLink", "CppCompile", "ClangCudaCompile"}


def spawns(path):
    text = open(path, encoding="utf-8").read()
    dec = json.JSONDecoder()
    i, out = 0, []
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return out
        obj, i = dec.raw_decode(text, i)
        out.append(obj)


def label(s):
    return s.get("targetLabel") or (s.get("listedOutputs") or ["?"])[0]


def summary(path, all_hits):
    ss = spawns(path)
    if not ss:
        print(f"{path}: no spawn at all")
        return 1
    runners = collections.Counter(s.get("runner", "?") for s in ss)
    mnemonics = collections.Counter(s.get("mnemonic", "?") for s in ss)
    want = {"remote cache hit"} if all_hits else REMOTE
    bad = [s for s in ss if s.get("runner") not in want]
    print(f"{len(ss)} spawns: " + ", ".join(f"{n} {r}" for r, n in sorted(runners.items())) +
          "; " + ", ".join(f"{m} {n}" for m, n in sorted(mnemonics.items())))
    if all_hits:
        print(f"remote cache hit rate: {len(ss) - len(bad)}/{len(ss)} = {100 * (len(ss) - len(bad)) / len(ss):.0f}%")
    for s in bad[:20]:
        print(f"  NOT {'a remote cache hit' if all_hits else 'remote'}: {s.get('mnemonic')} {label(s)} ran by {s.get('runner')!r}")
    return 1 if bad else 0


def outputs(path):
    got = {}
    for s in spawns(path):
        if s.get("mnemonic") in COMPARED:
            for o in s.get("actualOutputs", []):
                if o.get("digest"):
                    got[o["path"]] = (s["mnemonic"], o["digest"]["hash"])
    return got


def same(a, b):
    oa, ob = outputs(a), outputs(b)
    common = sorted(set(oa) & set(ob))
    differ = [p for p in common if oa[p][1] != ob[p][1]]
    nvcc = [p for p in common if oa[p][0].startswith("Nvcc")]
    print(f"{len(common)} compile outputs in both checkouts ({len(nvcc)} from nvcc): {len(common) - len(differ)} identical")
    for p in differ[:20]:
        print(f"  DIFFER: {p} ({oa[p][0]}): {oa[p][1][:12]} vs {ob[p][1][:12]}")
    return 1 if differ or not nvcc else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    if args and args[0] == "--same-outputs":
        sys.exit(same(args[1], args[2]))
    sys.exit(summary(args[0], "--all-hits" in args[1:]))
