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
