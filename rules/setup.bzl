"""Setting up the repositories behind the hub: one implementation for the WORKSPACE macro and the module extension.

cudapkgs generate copies this file into the repository it writes as //rules:setup.bzl, next to the data it
generated (//:generated.bzl). cuda_repositories() (WORKSPACE) and the `cuda` module extension (bzlmod,
//:extensions.bzl) both turn their arguments into settings with cuda_settings() and then call
cuda_declare(). Every label here is relative to the generated repository (Label("//...")), so the hub may
have any name. Works with Bazel 4.2.3 and 7.x.
"""

load("@bazel_tools//tools/build_defs/repo:http.bzl", "http_archive")
load("//:generated.bzl", "ARCHIVES", "CAPABILITIES", "DEFAULT_VERSION", "HOST_COMPILERS", "LOCAL", "NAME", "PINNABLE", "PLATFORMS", "VERSIONS")
load("//rules:local.bzl", "cuda_local_repository")

_PLATFORM_ALIASES = {"linux-aarch64": "linux-jetson"}

def _hub(target):
    """The label of a target of the hub, as a string any repository can use."""
    return str(Label("//" + target))

def _check_subset(what, given, allowed, where):
    for v in given:
        if v not in allowed:
            fail("%s: %s %s was not generated; this repository has %s (run cudapkgs generate with it to add it)" % (where, what, v, ", ".join(allowed)))

def _per_cuda_last(pin):
    """Sort key of a (key, release) pin: product-wide ones first. A named function: Bazel 4.2.3 has no lambda."""
    return "@" in pin[0]

def cuda_settings(
        versions = None,
        default_version = None,
        platforms = None,
        capabilities = None,
        mirrors = None,
        pins = None,
        local = None,
        gpu_exec_property = None,
        where = "cuda_repositories"):
    """Checks the arguments of cuda_repositories() or the module extension's tags against what was generated.

    Args:
      versions: the CUDA versions to enable (default: every generated one).
      default_version: the default of --@cuda//:version (default: the newest enabled one, or the generated default).
      platforms: the target platforms to enable (linux-x86_64, linux-sbsa, linux-jetson; default: every generated one).
      capabilities: the default of --@cuda//:capabilities (default: the generated -gencode defaults).
      mirrors: base URLs with NVIDIA's layout, tried before the generated URLs.
      pins: {"product": "major.minor"} or {"product@cuda version": "major.minor"}: the release a product's default names use.
      local: None: the installed CUDA generation read (cudapkgs generate --local-cuda), if any; False: downloads
        only; {"path": ..., "components": [...]}: that install (the path generation read), only these components;
        with "found" (the module extension's reading of another install, shaped like LOCAL): that install.
      gpu_exec_property: "KEY=VALUE", the remote-execution platform property cuda_test's test action asks for
        (docs/remote.md); empty or None: none.
      where: what the arguments came from, for messages.

    Returns:
      A dict of settings for cuda_declare().
    """
    versions = list(versions) if versions else list(VERSIONS)
    _check_subset("CUDA version", versions, VERSIONS, where)
    if default_version:
        if default_version not in versions:
            fail("%s: default CUDA version %s is not among the enabled versions %s" % (where, default_version, ", ".join(versions)))
    elif DEFAULT_VERSION in versions:
        default_version = DEFAULT_VERSION
    else:
        default_version = [v for v in VERSIONS if v in versions][-1]
    platforms = [_PLATFORM_ALIASES.get(p, p) for p in (platforms or PLATFORMS)]
    _check_subset("target platform", platforms, PLATFORMS, where)
    pin_targets = {}

    # Product-wide pins first, then per-CUDA ones, so that a pin for one CUDA version wins whatever the order.
    for key, release in sorted((pins or {}).items(), key = _per_cuda_last):
        product, _, cuda = key.partition("@")
        if product not in PINNABLE:
            fail("%s: pin %s: %s has no versioned releases in this repository; pinnable: %s" % (where, key, product, ", ".join(sorted(PINNABLE.keys())) or "none"))
        mm = ".".join(release.split(".")[:2])
        if cuda and cuda not in VERSIONS:
            fail("%s: pin %s: CUDA %s was not generated; this repository has %s" % (where, key, cuda, ", ".join(VERSIONS)))
        for v in ([cuda] if cuda else versions):
            offered = PINNABLE[product]["releases"].get(v)
            if offered == None:
                if not cuda:
                    continue  # a product-wide pin applies where the product has versioned releases
                fail("%s: pin %s: CUDA %s offers no versioned %s releases" % (where, key, v, product))
            if mm not in offered:
                fail("%s: pin %s=%s: CUDA %s offers %s %s" % (where, key, release, v, product, ", ".join(offered)))
            for pkg in PINNABLE[product]["packages"]:
                pin_targets.setdefault(pkg, {})[v] = pkg + "_" + mm.replace(".", "_")
    if local == None:
        local = LOCAL or None
    elif local == False:
        local = None
    else:
        # "found": the module extension read the install itself (rules/local.bzl's local_resolve), a dict
        # shaped like LOCAL; else only the install generation read can be used (a macro reads no files).
        data = local.get("found") or LOCAL
        when = "" if local.get("found") else " when generating"
        if not data:
            fail("%s: local CUDA %s: this repository was generated without one; run cudapkgs generate --local-cuda %s" % (where, local["path"] or "(no path)", local["path"] or "PATH"))
        if local.get("path") and local["path"] != data["path"] and not local.get("found"):
            fail("%s: local CUDA %s: this repository was generated for the install at %s; run cudapkgs generate --local-cuda %s" % (where, local["path"], data["path"], local["path"]))
        components = local.get("components") or data["components"]
        for c in components:
            if c not in data["components"]:
                fail("%s: local CUDA %s: component %s was not found there%s; found: %s" % (where, local["path"], c, when, ", ".join(data["components"])))
        local = {"archives": {n: f for n, f in data["archives"].items() if ARCHIVES[n]["component"] in components}, "components": components, "path": data["path"]}
    gpu = {}
    if gpu_exec_property:
        key, eq, value = gpu_exec_property.partition("=")
        if not eq or not key.strip() or not value.strip() or key != key.strip() or value != value.strip():
            fail("%s: gpu_exec_property %s: expected KEY=VALUE, such as gpu=nvidia (docs/remote.md)" % (where, json.encode(gpu_exec_property)))
        gpu = {"test." + key: value}
    return {
        "capabilities": list(capabilities) if capabilities != None else list(CAPABILITIES),
        "gpu_test_exec_properties": gpu,
        "default_version": default_version,
        "local": local,
        "mirrors": [m if m.endswith("/") else m + "/" for m in (mirrors or [])],
        "pins": pin_targets,
        "platforms": platforms,
        "versions": versions,
        "where": where,
    }

def _mirrored(archive, mirrors):
    """The mirrors' URLs (NVIDIA's layout below each base) first, then the generated ones, without duplicates."""
    out = []
    for u in [m + archive["mirror_path"] for m in mirrors if archive["mirror_path"]] + archive["urls"]:
        if u not in out:
            out.append(u)
    return out

def _disabled_reason(settings, archive):
    cuda = [v for v in archive["cuda"] if v in settings["versions"]]
    if not cuda:
        return "CUDA %s is not enabled by %s (enabled: %s)" % (", ".join(archive["cuda"]), settings["where"], ", ".join(settings["versions"]))
    plats = [p for p in archive["platforms"] if p in settings["platforms"]]
    if not plats:
        return "target platform %s is not enabled by %s (enabled: %s)" % (", ".join(archive["platforms"]), settings["where"], ", ".join(settings["platforms"]))
    return None

# buildifier: disable=unnamed-macro
def cuda_declare(settings):
    """Declares every archive's repository and the configuration repository <name>_config.

    An archive of a CUDA version or target platform the settings do not enable becomes a repository whose
    targets fail at analysis saying so; one of an enabled local install's components becomes a repository
    of links into the install; the others are http_archives (fetched only when a build needs them).

    Args:
      settings: from cuda_settings().
    """
    local = settings["local"]
    for name, archive in sorted(ARCHIVES.items()):
        reason = _disabled_reason(settings, archive)
        build_file = Label("//repos:%s.BUILD" % name)
        if reason:
            _cuda_disabled(
                name = name,
                message = "@%s (%s %s): %s" % (name, archive["component"], archive["version"], reason),
                targets = archive["targets"],
                unusable_bzl = str(Label("//unusable:defs.bzl")),
            )
        elif local and name in local["archives"]:
            cuda_local_repository(
                name = name,
                path = local["path"],
                component = archive["component"],
                version = archive["version"],
                files = local["archives"][name],
                build_file = build_file,
            )
        elif archive.get("merge") or archive.get("patches"):
            cuda_archive(
                name = name,
                build_file = build_file,
                archives = [json.encode({
                    "sha256": a["sha256"],
                    "strip_prefix": a["strip_prefix"],
                    "type": a.get("type", ""),
                    "urls": _mirrored(a, settings["mirrors"]),
                }) for a in [archive] + [ARCHIVES[m] for m in archive.get("merge", [])]],
                patches = [json.encode(p) for p in archive.get("patches", [])],
            )
        else:
            kwargs = {}
            if archive["strip_prefix"]:
                kwargs["strip_prefix"] = archive["strip_prefix"]
            if archive.get("type"):
                # A wheel (.whl) is a zip that Bazel does not know by its name.
                kwargs["type"] = archive["type"]
            http_archive(
                name = name,
                build_file = build_file,
                sha256 = archive["sha256"],
                urls = _mirrored(archive, settings["mirrors"]),
                **kwargs
            )
    _cuda_config(
        name = NAME + "_config",
        versions = settings["versions"],
        generated_versions = VERSIONS,
        default_version = settings["default_version"],
        capabilities = settings["capabilities"],
        pins = {pkg: json.encode(by_cuda) for pkg, by_cuda in settings["pins"].items()},
        pinnable = sorted([pkg for product in PINNABLE.values() for pkg in product["packages"]]),
        hub = _hub(":BUILD.bazel").rpartition("//")[0],
        host_compilers = {v: json.encode(r) for v, r in HOST_COMPILERS.items()},
        gpu_test_exec_properties = settings["gpu_test_exec_properties"],
    )

# A WORKSPACE macro by design: it declares repositories, it has no name.
# buildifier: disable=unnamed-macro
def cuda_repositories(
        versions = None,
        default_version = None,
        platforms = None,
        capabilities = None,
        mirrors = None,
        pins = None,
        local_cuda = None,
        local_components = None,
        gpu_exec_property = None,
        register_toolchains = True):
    """WORKSPACE: declares the archives behind the hub (see cuda_settings for the arguments).

    Args:
      versions: CUDA versions to enable.
      default_version: the default of --@cuda//:version.
      platforms: target platforms to enable.
      capabilities: the default of --@cuda//:capabilities.
      mirrors: mirror base URLs, tried first.
      pins: {"cudnn": "8.9"} or {"cudnn@12.2.2": "8.9"}.
      local_cuda: False: downloads only; default: the installed CUDA generation read (--local-cuda), if any.
      local_components: the components taken from it (default: every one generation found).
      gpu_exec_property: "KEY=VALUE": what cuda_test's test action asks a remote executor for (docs/remote.md).
      register_toolchains: whether to register the nvcc toolchains.
    """
    local = local_cuda
    if local_cuda:
        local = {"components": local_components, "path": local_cuda}
    elif local_cuda == None and local_components:
        local = {"components": local_components, "path": LOCAL.get("path", "")}
    cuda_declare(cuda_settings(versions, default_version, platforms, capabilities, mirrors, pins, local, gpu_exec_property, where = "cuda_repositories()"))
    if register_toolchains:
        native.register_toolchains(_hub("toolchain:all"))

def _cuda_archive_impl(rctx):
    # Every archive is unpacked into the one folder: the first is the
    # package's own, the others are merged into it (CUDA 13's nvcc finds cicc
    # and libdevice in $(TOP)/nvvm, which the libnvvm archive holds). Each is
    # checked against its sha256 and shares the repository cache.
    for a in rctx.attr.archives:
        a = json.decode(a)
        rctx.download_and_extract(url = a["urls"], sha256 = a["sha256"], stripPrefix = a["strip_prefix"], type = a.get("type", ""))
    for p in rctx.attr.patches:
        p = json.decode(p)
        for path, old, new in p["edits"]:
            f = rctx.path(path)
            if not f.exists:
                fail("@%s: patch %s (%s): %s is not in the archive" % (rctx.name, p["name"], p["why"], path))
            text = rctx.read(f)
            n = text.count(old)
            if n != 1:
                fail("@%s: patch %s (%s): %s has the text to replace %d times, expected once: %s" % (rctx.name, p["name"], p["why"], path, n, old))

            # Written anew, not in place: the unpacked file may be a hard link
            # into the repository cache.
            rctx.delete(f)
            rctx.file(path, text.replace(old, new), executable = False)
    rctx.file("WORKSPACE", 'workspace(name = "%s")\n' % rctx.name.split("~")[-1].split("+")[-1])
    rctx.symlink(rctx.attr.build_file, "BUILD.bazel")

cuda_archive = repository_rule(
    implementation = _cuda_archive_impl,
    attrs = {
        "archives": attr.string_list(mandatory = True, doc = "JSON {urls, sha256, strip_prefix, type}: the package's archive, then those merged into it"),
        "build_file": attr.label(allow_single_file = True, mandatory = True),
        "patches": attr.string_list(doc = "JSON {name, why, edits: [[path, old, new]]}: text replacements, each matching once"),
    },
    doc = "An archive with others unpacked into it and text patches applied: what http_archive cannot do.",
)

def _cuda_disabled_impl(rctx):
    lines = ['load("%s", "unusable")' % rctx.attr.unusable_bzl, 'package(default_visibility = ["//visibility:public"])']
    for t in rctx.attr.targets:
        lines.append("unusable(name = %s, message = %s)" % (json.encode(t), json.encode(rctx.attr.message)))
    rctx.file("WORKSPACE", 'workspace(name = "%s")\n' % rctx.name.split("~")[-1].split("+")[-1])
    rctx.file("BUILD.bazel", "\n".join(lines) + "\n")

_cuda_disabled = repository_rule(
    implementation = _cuda_disabled_impl,
    attrs = {
        "message": attr.string(mandatory = True),
        "targets": attr.string_list(),
        "unusable_bzl": attr.string(mandatory = True),
    },
    doc = "An archive the settings do not enable: its targets fail at analysis with the reason.",
)

def _probe_host_compiler(rctx, lo, hi):
    """"" when the C++ toolchain's compiler ($CC, else gcc) is within [lo, hi]; else the newest g++-N on PATH within it, by name.

    The C++ toolchain's compiler comes first: it is the one cross builds use too. Only when it is out of
    nvcc's range (Debian bookworm's gcc 12 with nvcc 11.8) is another one looked for; with none found the
    host compiler check fails at build time naming the range.
    """
    cc = rctx.os.environ.get("CC") or "gcc"
    p = rctx.which(cc) if "/" not in cc else rctx.path(cc)
    if p and p.exists:
        r = rctx.execute([p, "-dumpversion"])
        major = r.stdout.strip().split(".")[0]
        if r.return_code == 0 and major.isdigit() and lo <= int(major) and int(major) <= hi:
            return ""
    for n in range(hi, lo - 1, -1):
        # By name, not by this machine's path: nvcc's -ccbin finds it on the
        # action's PATH, on a remote executor as here (docs/remote.md).
        if rctx.which("g++-%d" % n):
            return "g++-%d" % n
    return ""

def _cuda_config_impl(rctx):
    host = {}
    for v, r in rctx.attr.host_compilers.items():
        ranges = json.decode(r)
        if "gcc" in ranges:
            host[v] = _probe_host_compiler(rctx, ranges["gcc"][0], ranges["gcc"][1])
    rctx.file("WORKSPACE", "")
    rctx.file("BUILD.bazel", "")
    rctx.file("config.bzl", "\n".join([
        '"""The settings of the hub, from %s."""' % ("cuda_repositories() or the cuda module extension"),
        "VERSIONS = %s" % json.encode(rctx.attr.versions),
        "GENERATED_VERSIONS = %s" % json.encode(rctx.attr.generated_versions),
        "DEFAULT_VERSION = %s" % json.encode(rctx.attr.default_version),
        "CAPABILITIES = %s" % json.encode(rctx.attr.capabilities),
        "# The host compiler nvcc uses per CUDA version, found on this machine within the supported range;",
        "# \"\": the C++ toolchain's compiler.",
        "HOST_COMPILER = %s" % json.encode(host),
        "# What cuda_test's test action (the test exec group) asks a remote executor for (gpu_exec_property).",
        "GPU_TEST_EXEC_PROPERTIES = %s" % json.encode(rctx.attr.gpu_test_exec_properties),
        "",
    ]))
    hub = rctx.attr.hub
    lines = ['package(default_visibility = ["//visibility:public"])']
    for pkg in rctx.attr.pinnable:
        by_cuda = json.decode(rctx.attr.pins[pkg]) if pkg in rctx.attr.pins else {}
        cases = ", ".join(['"%s//version:%s": "%s//:%s"' % (hub, v, hub, t) for v, t in sorted(by_cuda.items())])
        default = '"//conditions:default": "%s//:%s__generated"' % (hub, pkg)
        lines.append('alias(name = "%s", actual = select({%s}))' % (pkg, ", ".join([c for c in [cases, default] if c])))
    rctx.file("pins/BUILD.bazel", "\n".join(lines) + "\n")

_cuda_config = repository_rule(
    implementation = _cuda_config_impl,
    attrs = {
        "capabilities": attr.string_list(),
        "default_version": attr.string(mandatory = True),
        "generated_versions": attr.string_list(),
        "gpu_test_exec_properties": attr.string_dict(doc = "test.KEY -> VALUE, or nothing"),
        "host_compilers": attr.string_dict(doc = "CUDA version -> JSON {family: [min, max]}"),
        "hub": attr.string(mandatory = True),
        "pinnable": attr.string_list(),
        "pins": attr.string_dict(doc = "package -> JSON {CUDA version: versioned package name}"),
        "versions": attr.string_list(),
    },
    environ = ["CC", "PATH"],
    doc = "The hub's settings: enabled versions, defaults, pins and the host compiler found for each CUDA version.",
)
