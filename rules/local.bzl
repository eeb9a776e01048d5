"""A component of an installed CUDA in place of its archive: links to the install's files.

cudapkgs generate --local-cuda PATH reads the install (core/localcuda: its layout, its version, where each
file of each component is) and records, per archive it replaces, which file of the install stands for each
path of the archive. This rule makes a repository of links with those paths and the archive's own BUILD
file, so the hub, the rules and the user's BUILD files cannot tell the difference. A folder the install
shares with other software (Debian's /usr/include) is not linked: the compiler finds it on its own search
path, and the repository gets an empty folder in its place.
"""

def _cuda_local_repository_impl(rctx):
    missing = []
    for rel, found in sorted(rctx.attr.files.items()):
        target, _, system = found.partition("|")
        if system == "system":
            rctx.file(rel + "/README.cudapkgs", "%s comes from %s, the compiler's own search path.\n" % (rel, target))
            continue
        p = rctx.path(target)
        if not p.exists:
            missing.append("%s (%s)" % (rel, target))
            continue
        rctx.symlink(p, rel)
    if missing:
        fail("local CUDA at %s: component %s %s is missing files the generation found: %s; run cudapkgs generate again" % (
            rctx.attr.path,
            rctx.attr.component,
            rctx.attr.version,
            ", ".join(missing),
        ))
    rctx.file("WORKSPACE", "")
    rctx.symlink(rctx.attr.build_file, "BUILD.bazel")

cuda_local_repository = repository_rule(
    implementation = _cuda_local_repository_impl,
    attrs = {
        "build_file": attr.label(mandatory = True, allow_single_file = True),
        "component": attr.string(mandatory = True),
        "files": attr.string_dict(doc = "path in the archive -> file of the install, with |system for a shared system folder"),
        "path": attr.string(mandatory = True, doc = "the install's root"),
        "version": attr.string(mandatory = True),
    },
    local = True,
    doc = "One component of an installed CUDA, with the paths and BUILD file of the archive it replaces.",
)

# --- Reading an install at Bazel time (the module extension) -------------------------------------------------
#
# The same search as core/localcuda and cmd/cudapkgs/local.go, over the same layout table (LOCAL_LAYOUTS in
# generated.bzl is rendered from localcuda.Layouts()), for an install that generation did not read. Every
# function takes ctx, anything with path(str) (a path with exists, is_dir, realpath, basename, readdir()) and
# read(path): module_ctx in Bazel, a fake over a real folder in the Go tests. No lambda, no nested def, no
# recursion: this file loads in Bazel 4.2.3 too (though only the extension calls these).

def _is_dir(p):
    """Whether a path is a folder. Bazel before 7.1 has no is_dir: a name without a dot counts as a folder there."""
    if hasattr(p, "is_dir"):
        return p.is_dir
    return "." not in p.basename

def _in(where, text):
    """text, after what the setting came from (the extension's tag) when there is one."""
    return "%s: %s" % (where, text) if where else text

def _join(*parts):
    return "/".join([x for x in parts if x])

def _glob(ctx, root, pattern):
    """The root-relative paths matching pattern, whose elements may hold one '*', in name order (localcuda's glob)."""
    paths = [""]
    for elem in pattern.split("/"):
        nxt = []
        for d in paths:
            if "*" not in elem:
                q = _join(d, elem)
                if ctx.path(_join(root, q)).exists:
                    nxt.append(q)
                continue
            pre, _, suf = elem.partition("*")
            dp = ctx.path(_join(root, d))
            if not dp.exists or not _is_dir(dp):
                continue
            for n in sorted([e.basename for e in dp.readdir()]):
                if len(n) >= len(pre) + len(suf) and n.startswith(pre) and n.endswith(suf):
                    nxt.append(_join(d, n))
        paths = nxt
    return paths

def _expand_triples(p, triples):
    if "{triple}" not in p:
        return [p]
    return [p.replace("{triple}", t[0]) for t in triples]

def parse_version(s):
    """Parses a version as version.Parse does: one to four dot-separated numbers.

    Args:
      s: the text.

    Returns:
      The list of numbers, or None when s is not a version.
    """
    parts = s.split(".")
    if len(parts) > 4:
        return None
    for x in parts:
        if not x.isdigit():
            return None
    return [int(x) for x in parts]

def _padded(v):
    return v + [0] * (4 - len(v))

def _vequal(a, b):
    """Numeric equality: 12.4 equals 12.4.0."""
    return _padded(a) == _padded(b)

def _vstr(v):
    return ".".join([str(x) for x in v])

def _parse_archive_name(name, platform_keys):
    """(component, platform, version) of <component>-<platform>-<version>[_<variant>]-archive, or None."""
    if not name.endswith("-archive"):
        return None
    rest = name[:-len("-archive")]
    for p in platform_keys:
        c, sep, ver = rest.partition("-" + p + "-")
        if not sep or not c:
            continue
        v = parse_version(ver.partition("_")[0])
        if v != None:
            return (c, p, v)
    return None

def _read_version(ctx, file, kind, key, where):
    """The version a file (or a folder, for "name") states by kind, or None; a key without a version fails."""
    if kind == "json":
        doc = json.decode(ctx.read(file))
        for k in key.split("."):
            if type(doc) != "dict" or k not in doc:
                return None
            doc = doc[k]
        v = parse_version(doc) if type(doc) == "string" else None
        if v == None:
            fail(_in(where, "%s: key %s: expected a version string, not %s" % (file, json.encode(key), json.encode(doc))))
        return v
    if kind == "define":
        for line in ctx.read(file).split("\n"):
            fields = line.split()
            if len(fields) < 3 or fields[0] != "#define" or fields[1] != key:
                continue
            if not fields[2].isdigit() or int(fields[2]) < 1000:
                fail(_in(where, "%s: #define %s %s: expected an integer such as 12040 (major*1000 + minor*10)" % (file, key, fields[2])))
            n = int(fields[2])
            return [n // 1000, n % 1000 // 10]
        return None
    if kind == "name":
        d = ctx.path(file)
        if not d.exists:
            return None
        found = None
        for e in d.readdir():
            if not e.basename.startswith(key):
                continue
            v = parse_version(e.basename[len(key):])
            if v == None or len(v) < 3:
                continue
            if found != None and not _vequal(found, v):
                return None  # two versions state nothing certain
            found = v
        return found
    if kind == "text":
        data = ctx.read(file)
        i = data.find(key)
        for _ in range(len(data)):
            if i < 0:
                return None
            rest = data[i + len(key):i + len(key) + 32]
            n = 0
            for c in rest.elems():
                if c != "." and not c.isdigit():
                    break
                n += 1
            v = parse_version(rest[:n].rstrip("."))
            if v != None:
                return v
            i = data.find(key, i + len(key))
        return None
    fail(_in(where, "%s: version source kind %s: expected one of json, define, name, text" % (file, json.encode(kind))))

def _triple(ctx, inst, layout):
    """The install's [triple, platform]: the one whose probe exists, or the one triple_link leads into."""
    root = inst["root"]
    found = [t for t in layout["triples"] if _glob(ctx, root, layout["triple_probe"].replace("{triple}", t[0]))]
    if len(found) == 1:
        return found[0]
    if not found:
        fail(_in(inst["where"], "CUDA install %s (%s layout): no %s for any known triple (%s)" % (root, inst["layout"], layout["triple_probe"], ", ".join([t[0] for t in layout["triples"]]))))
    names = ", ".join([t[0] for t in found])
    if layout["triple_link"]:
        link = ctx.path(_join(root, layout["triple_link"]))
        if link.exists:
            real = str(link.realpath)
            for t in found:
                probe = ctx.path(_join(root, layout["triple_probe"].replace("{triple}", t[0])))
                if probe.exists:
                    d = str(probe.realpath)
                    if real == d or real.startswith(d + "/"):
                        return t
        fail(_in(inst["where"], "CUDA install %s (%s layout): holds %s; %s does not lead into one of them, so which is the install's own cannot be told" % (root, inst["layout"], names, _join(root, layout["triple_link"]))))
    fail(_in(inst["where"], "CUDA install %s (%s layout): holds %s, so which is the install's own cannot be told" % (root, inst["layout"], names)))

def _set(inst, comp, v, frm):
    if comp not in inst["components"]:
        inst["components"][comp] = v
        inst["from"][comp] = frm

def _read_components(ctx, inst, s, platform_keys):
    root = inst["root"]
    if s["kind"] == "json-components":
        for rel in _glob(ctx, root, s["path"]):
            file = _join(root, rel)
            doc = json.decode(ctx.read(file))
            for k in sorted(doc.keys()):
                entry = doc[k]
                if k == s["key"] or type(entry) != "dict" or type(entry.get("version")) != "string":
                    continue  # the toolkit's own entry, or not a component's
                v = parse_version(entry["version"])
                if v == None:
                    fail(_in(inst["where"], "%s: key %s: %s is not a version" % (file, json.encode(k + ".version"), json.encode(entry["version"]))))
                _set(inst, k, v, file)
            return
        return
    if s["kind"] == "archive-names":
        for rel in _glob(ctx, root, s["path"]):
            if not _is_dir(ctx.path(_join(root, rel))):
                continue
            name = rel.split("/")[-1]
            parsed = _parse_archive_name(name, platform_keys)
            if parsed == None:
                fail(_in(inst["where"], "%s: folder name %s: expected <component>-<platform>-<version>-archive, as NVIDIA's archives unpack, with a platform such as linux-x86_64" % (_join(root, rel), json.encode(name))))
            comp, plat, v = parsed
            if comp in inst["archives"]:
                fail(_in(inst["where"], "CUDA install %s: %s and %s are both %s: expected one archive per component" % (root, inst["archives"][comp], name, comp)))
            inst["archives"][comp] = name
            inst["archive_platforms"][plat] = True
            _set(inst, comp, v, _join(root, rel))
        return
    fail(_in(inst["where"], "layout %s: component source kind %s: expected json-components or archive-names" % (inst["layout"], json.encode(s["kind"]))))

def local_find(ctx, inst, component, rel):
    """Install.Find: the install's file or folder for a path of a component's archive.

    Args:
      ctx: module_ctx, or anything with its path() and read().
      inst: from local_detect().
      component: the component (its archive folder, in the redist layout).
      rel: a path relative to the component's archive.

    Returns:
      {"path", "dir", "system", "merged"} as localcuda.Match, or None when the install has none.
    """
    if not rel or rel.startswith("/") or rel == ".." or rel.startswith("../"):
        return None
    for x in rel.split("/"):
        if x in ("", ".", ".."):
            return None
    best = None
    for d in inst["dirs"]:
        if d["prefix"] and rel != d["prefix"] and not rel.startswith(d["prefix"] + "/"):
            continue
        if best == None or len(d["prefix"]) > len(best["prefix"]):
            best = d
    if best == None:
        return None
    rest = rel[len(best["prefix"]):].lstrip("/")
    for c in best["candidates"]:
        base = c["path"].replace("{triple}", inst["triple"])
        if "{archive}" in base:
            if component not in inst["archives"]:
                return None
            base = base.replace("{archive}", inst["archives"][component])
        p = _join(inst["root"], base, rest)
        pp = ctx.path(p)
        if not pp.exists:
            continue
        is_dir = _is_dir(pp)
        return {"dir": is_dir, "merged": inst["merged"] and is_dir, "path": p, "system": c["system"] and rest == ""}
    return None

def local_detect(ctx, root, layouts, hints, platform_keys, where = ""):
    """localcuda.Detect: the install's layout, triple, platform, release and stated component versions.

    Args:
      ctx: module_ctx, or anything with its path() and read().
      root: the install's root, absolute.
      layouts: LOCAL_LAYOUTS (localcuda.Starlark of the layout table).
      hints: LOCAL_HINTS: [{"component", "rel", "kind", "key"}].
      platform_keys: the NVIDIA platform keys, to read redist folder names.
      where: what the setting came from, to start messages with; "" for none.

    Returns:
      A dict: root, layout, triple, platform, cuda (numbers or None), cuda_from, components
      (component -> numbers), from, and what local_find needs.
    """
    if not root.startswith("/"):
        fail(_in(where, "CUDA install %s: expected an absolute path" % root))
    root = root.rstrip("/") or "/"
    p = ctx.path(root)
    if not p.exists:
        fail(_in(where, "CUDA install %s: no such folder" % root))
    if not _is_dir(p):
        fail(_in(where, "CUDA install %s: not a folder: expected the toolkit's root (/usr/local/cuda, /usr, or a folder of unpacked *-archive folders)" % root))
    looked = []
    for name, layout in layouts.items():
        marked = False
        for m in layout["markers"]:
            for q in _expand_triples(m, layout["triples"]):
                if _glob(ctx, root, q):
                    marked = True
        if not marked:
            looked.append("%s (%s)" % (" or ".join(layout["markers"]), name))
            continue
        inst = {
            "archive_platforms": {},
            "archives": {},
            "components": {},
            "cuda": None,
            "cuda_from": "",
            "dirs": layout["dirs"],
            "from": {},
            "layout": name,
            "merged": layout["merged"],
            "platform": "",
            "root": root,
            "triple": "",
            "where": where,
        }
        if layout["triple_probe"]:
            t = _triple(ctx, inst, layout)
            inst["triple"], inst["platform"] = t[0], t[1]
        for s in layout["components"]:
            _read_components(ctx, inst, s, platform_keys)
        if name == "redist":
            plats = sorted(inst["archive_platforms"].keys())
            if not plats:
                fail(_in(where, "CUDA install %s (%s layout): no folder named <component>-<platform>-<version>-archive" % (root, name)))
            if len(plats) > 1:
                fail(_in(where, "CUDA install %s (%s layout): holds archives for %s: expected one platform per folder" % (root, name, " and ".join(plats))))
            inst["platform"] = plats[0]
        tried = []
        for s in layout["release"]:
            src = s["path"].replace("{triple}", inst["triple"]) if inst["triple"] else s["path"]
            for rel in _glob(ctx, root, src):
                v = _read_version(ctx, _join(root, rel), s["kind"], s["key"], where)
                if v != None:
                    inst["cuda"], inst["cuda_from"] = v, _join(root, rel)
                    break
            if inst["cuda"] != None:
                break
            tried.append("%s key %s" % (s["path"], json.encode(s["key"])) if s["kind"] == "json" else ("%s #define %s" % (s["path"], s["key"]) if s["kind"] == "define" else s["path"]))
        if inst["cuda"] == None and not layout["release_optional"]:
            fail(_in(where, "CUDA install %s (%s layout): no file states the CUDA release: looked for %s" % (root, name, ", ".join(tried))))
        for h in hints:
            if h["component"] in inst["components"]:
                continue
            m = local_find(ctx, inst, h["component"], h["rel"])
            if m == None:
                continue
            v = _read_version(ctx, m["path"], h["kind"], h["key"], where)
            if v != None:
                inst["components"][h["component"]] = v
                inst["from"][h["component"]] = m["path"]
        return inst
    fail(_in(where, "CUDA install %s: no known layout: looked for %s" % (root, "; ".join(looked))))

def _stated_text(inst):
    parts = ["CUDA " + _vstr(inst["cuda"])] if inst["cuda"] != None else []
    return ", ".join(parts + ["%s %s" % (c, _vstr(inst["components"][c])) for c in sorted(inst["components"].keys())])

def _agrees(by_comp, have, comps, required):
    for c in comps:
        if c not in by_comp:
            if required:
                return False
            continue
        if not _vequal(parse_version(by_comp[c]["version"]), have[c]):
            return False
    return True

def _essential(kind):
    """A component cannot stand in for its archive without a file of this kind (local.go's essential)."""
    return kind in ("headers", "shared_lib", "binary")

def _local_files(ctx, inst, comp, archive):
    """local.go's localFiles: (files, problems, evidence) of one archive."""
    problems = []
    evidence = comp in inst["components"]
    if evidence and not _vequal(inst["components"][comp], parse_version(archive["version"])):
        problems.append("the install has version %s (%s), the release %s" % (_vstr(inst["components"][comp]), inst["from"][comp], archive["version"]))
    files = {}
    for rel, kind in archive["files"].items():
        m = local_find(ctx, inst, comp, rel)
        if m == None:
            if _essential(kind):
                problems.append(rel + " not found")
        elif m["dir"] and m["system"]:
            files[rel] = m["path"] + "|system"
        else:
            files[rel] = m["path"]
            evidence = evidence or not (m["dir"] and (m["merged"] or m["system"]))
    return files, problems, evidence

def local_resolve(ctx, path, components, data, enabled, where):
    """Reads the install at path and maps it as cudapkgs generate --local-cuda does (cmd/cudapkgs/local.go).

    Args:
      ctx: module_ctx, or anything with its path() and read().
      path: the install's root, absolute.
      components: the components to take from it (all must be complete there); empty: the toolchain's
        compiler and runtime must be, and every other complete component with evidence is used too.
      data: from generated.bzl: {"archives": ARCHIVES, "layouts": LOCAL_LAYOUTS, "hints": LOCAL_HINTS,
        "identify": LOCAL_IDENTIFY, "required": LOCAL_REQUIRED, "platform_keys": LOCAL_PLATFORM_KEYS,
        "versions": VERSIONS}.
      enabled: the enabled CUDA versions.
      where: what the setting came from, for messages.

    Returns:
      A dict shaped like LOCAL in generated.bzl: {"path", "components", "archives": {repository: {rel: file}}}.
    """
    inst = local_detect(ctx, path, data["layouts"], data["hints"], data["platform_keys"], where)
    root, plat = inst["root"], inst["platform"]
    head = "%s: local CUDA %s (%s layout, %s)" % (where, root, inst["layout"], plat)

    # Per generated CUDA version, its toolkit archives (those with a file list) on the install's platform.
    by_version = {}
    for name, a in sorted(data["archives"].items()):
        if "files" not in a or a["key"] != plat:
            continue
        for v in a["cuda"]:
            by_version.setdefault(v, {})[a["component"]] = dict(a, name = name)
    if not by_version:
        fail("%s: this repository has no toolkit archives for %s (generated platforms: run cudapkgs generate with --platform %s)" % (head, plat, plat))

    # Install.Release over the generated versions: the release to the precision the install states, and
    # the identifying components' versions; other stated components break a tie.
    stated = [c for c in data["identify"] if c in inst["components"]]
    if not stated:
        fail("%s: states no version of %s, so no release can be matched: %s" % (head, " or ".join(data["identify"]), _stated_text(inst)))
    match = []
    for v in data["versions"]:
        if v not in by_version:
            continue
        rel = parse_version(v)
        cuda = inst["cuda"]
        if cuda != None and (_padded(rel[:len(cuda)]) != _padded(cuda) if len(cuda) < 3 else not _vequal(rel, cuda)):
            continue
        if _agrees(by_version[v], inst["components"], stated, True):
            match.append(v)
    if len(match) > 1:
        others = [c for c in inst["components"] if c not in stated]
        narrowed = [v for v in match if _agrees(by_version[v], inst["components"], others, False)]
        if narrowed:
            match = narrowed
    if not match:
        fail("%s: %s match none of the generated CUDA versions %s; run cudapkgs generate with the install's release in --cuda" % (head, _stated_text(inst), ", ".join(data["versions"])))
    if len(match) > 1:
        fail("%s: %s match CUDA %s alike: enable only one of them" % (head, _stated_text(inst), ", ".join(match)))
    release = match[0]
    if release not in enabled:
        fail("%s: the install is CUDA %s (read from %s), which is not among the enabled CUDA versions %s" % (head, release, inst["cuda_from"] or "its components' versions", ", ".join(enabled)))
    head = "%s: local CUDA %s (%s layout, CUDA %s)" % (where, root, inst["layout"], release)

    archives = by_version[release]
    for c in components:
        if c not in archives:
            fail("%s: component %s is not a toolkit component of CUDA %s on %s" % (head, c, release, plat))
    order = sorted([c for c in archives if not components or c in components])
    cands = {}
    for c in order:
        files, problems, evidence = _local_files(ctx, inst, c, archives[c])
        if not files and not problems:
            problems = ["it has no files on " + plat]
        cands[c] = {"evidence": evidence or bool(components), "files": files, "problems": problems}

    # Evidence, then the dependency closure over complete components (local.go): an install's component
    # should not depend on a downloaded one the install has (Debian's cuda_cccl is only /usr/include).
    use = {c: True for c in order if not cands[c]["problems"] and cands[c]["evidence"]}
    for _ in range(len(order)):
        added = False
        for c in sorted(use.keys()):
            for d in archives[c]["deps"]:
                if d in cands and d not in use and not cands[d]["problems"]:
                    use[d] = True
                    added = True
        if not added:
            break
    required = components or data["required"]
    for c in required:
        if c in use:
            continue
        problems = cands[c]["problems"] if c in cands else ["the release has no %s archive for %s" % (c, plat)]
        if not problems:
            problems = ["nothing of it is in the install but folders every component shares, and the install states no version of it"]
        version = archives[c]["version"] if c in archives else "?"
        fail("%s: component %s %s is missing: %s" % (head, c, version, "; ".join(problems)))
    return {
        "archives": {archives[c]["name"]: cands[c]["files"] for c in sorted(use.keys())},
        "components": sorted(use.keys()),
        "path": root,
    }
