"""The `cuda` module extension (bzlmod): the tags configure what cuda_repositories() configures in WORKSPACE.

cudapkgs generate copies this file to the root of the repository it writes, which is also a Bazel module:

    bazel_dep(name = "cuda")
    local_path_override(module_name = "cuda", path = "third_party/cuda")
    cuda = use_extension("@cuda//:extensions.bzl", "cuda")
    cuda.toolkit(versions = ["12.4.1", "12.6.3"], default = "12.6.3")
    cuda.platforms(targets = ["linux-x86_64", "linux-sbsa"])

Every setting may come from any module. The root module's value wins; when two other modules set the
same setting differently, the extension fails naming both modules and both values. Mirrors add up (the
root module's first).
"""

load("//:generated.bzl", "ARCHIVES", "LOCAL", "LOCAL_HINTS", "LOCAL_IDENTIFY", "LOCAL_LAYOUTS", "LOCAL_PLATFORM_KEYS", "LOCAL_REQUIRED", "VERSIONS")
load("//rules:local.bzl", "local_resolve")
load("//rules:setup.bzl", "cuda_declare", "cuda_settings")

_toolkit = tag_class(
    attrs = {
        "default": attr.string(doc = "the default of --@cuda//:version; default: the newest enabled version"),
        "versions": attr.string_list(doc = "CUDA versions to enable, among the generated ones; default: all"),
    },
    doc = "The CUDA versions the hub serves.",
)

_platforms = tag_class(
    attrs = {"targets": attr.string_list(mandatory = True, doc = "linux-x86_64, linux-sbsa, linux-jetson")},
    doc = "The target platforms the hub serves, among the generated ones.",
)

_capabilities = tag_class(
    attrs = {"capabilities": attr.string_list(mandatory = True, doc = "GPU capabilities such as 8.0 or 9.0a")},
    doc = "The default of --@cuda//:capabilities.",
)

_mirror = tag_class(
    attrs = {"urls": attr.string_list(mandatory = True, doc = "base URLs with NVIDIA's layout below them")},
    doc = "Mirrors, tried before NVIDIA.",
)

_pin = tag_class(
    attrs = {
        "cuda": attr.string(doc = "only for this CUDA version; default: every enabled version"),
        "product": attr.string(mandatory = True, doc = "a product with versioned releases: cudnn, cutensor, tensorrt"),
        "version": attr.string(mandatory = True, doc = "major.minor, e.g. 8.9"),
    },
    doc = "The release a product's default names (@cuda//:cudnn) use.",
)

_local = tag_class(
    attrs = {
        "components": attr.string_list(doc = "components to take from the install (each must be complete there); default: the compiler and runtime, which must be, and every other complete one found"),
        "enabled": attr.bool(default = True, doc = "False: downloads only, even though the repository was generated with --local-cuda"),
        "path": attr.string(doc = "the install's root (absolute); default: the one cudapkgs generate --local-cuda read. Another path is read by the extension itself"),
    },
    doc = "An installed CUDA used instead of downloads for its CUDA version and platform: the one cudapkgs generate --local-cuda read, or any other, which the extension reads with the same layout table.",
)

_remote = tag_class(
    attrs = {"gpu_exec_property": attr.string(doc = "KEY=VALUE: the platform property cuda_test's test action asks a remote executor for, e.g. gpu=nvidia (docs/remote.md); empty: none")},
    doc = "Remote execution: how GPU tests reach GPU workers. Compiles and links are not affected.",
)

def _origin(mod):
    return "module %s%s" % (mod.name or "<root>", " " + mod.version if mod.version else "")

def _resolve(mctx):
    """Per setting, (value, origin): the root module's, else the one all other modules agree on."""
    chosen = {}
    mirrors = []
    for mod in sorted(mctx.modules, key = lambda m: 0 if m.is_root else 1):
        seen = {}

        def put(key, value, mod = mod, seen = seen):
            if key in seen:
                fail("cuda extension: %s sets %s twice" % (_origin(mod), key))
            seen[key] = True
            if key not in chosen:
                chosen[key] = (value, mod)
            elif not chosen[key][1].is_root and chosen[key][0] != value:
                fail("cuda extension: conflicting %s: %s sets %s, %s sets %s; set it in the root module to decide" % (
                    key,
                    _origin(chosen[key][1]),
                    json.encode(chosen[key][0]),
                    _origin(mod),
                    json.encode(value),
                ))

        for t in mod.tags.toolkit:
            if t.versions:
                put("versions", list(t.versions))
            if t.default:
                put("default", t.default)
        for t in mod.tags.platforms:
            put("platforms", list(t.targets))
        for t in mod.tags.capabilities:
            put("capabilities", list(t.capabilities))
        for t in mod.tags.pin:
            put("pin " + t.product + ("@" + t.cuda if t.cuda else ""), t.version)
        for t in mod.tags.local:
            put("local", {"components": list(t.components), "path": t.path} if t.enabled else False)
        for t in mod.tags.remote:
            put("gpu_exec_property", t.gpu_exec_property)
        for t in mod.tags.mirror:
            mirrors.extend([u for u in t.urls if u not in mirrors])
    return chosen, mirrors

def _cuda_impl(mctx):
    chosen, mirrors = _resolve(mctx)

    def get(key):
        return chosen[key][0] if key in chosen else None

    def origin(keys):
        return ", ".join(sorted({_origin(chosen[k][1]): True for k in keys if k in chosen}.keys())) or "the generated defaults"

    pins = {k[len("pin "):]: v for k, (v, _) in chosen.items() if k.startswith("pin ")}
    local = get("local")
    if local and local["path"] and not (LOCAL and LOCAL["path"] == local["path"]):
        # An install generation did not read: read it here, as generation would have.
        data = {
            "archives": ARCHIVES,
            "hints": LOCAL_HINTS,
            "identify": LOCAL_IDENTIFY,
            "layouts": LOCAL_LAYOUTS,
            "platform_keys": LOCAL_PLATFORM_KEYS,
            "required": LOCAL_REQUIRED,
            "versions": VERSIONS,
        }
        found = local_resolve(mctx, local["path"], local["components"], data, get("versions") or VERSIONS, "cuda extension (%s)" % origin(["local"]))
        local = dict(local, found = found)
    settings = cuda_settings(
        versions = get("versions"),
        default_version = get("default"),
        platforms = get("platforms"),
        capabilities = get("capabilities"),
        mirrors = mirrors,
        pins = pins,
        local = local,
        gpu_exec_property = get("gpu_exec_property"),
        where = "cuda extension (%s)" % origin(chosen.keys()),
    )
    cuda_declare(settings)

cuda = module_extension(
    implementation = _cuda_impl,
    tag_classes = {
        "capabilities": _capabilities,
        "local": _local,
        "mirror": _mirror,
        "pin": _pin,
        "platforms": _platforms,
        "remote": _remote,
        "toolkit": _toolkit,
    },
    doc = "Declares the archives behind the hub and its settings; see the tag classes.",
)
