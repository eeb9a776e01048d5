"""CUDA rules: cuda_library, cuda_binary, cuda_test, the nvcc toolchain and the capabilities setting.

cudapkgs generate copies this file into the repository it writes as //rules:cuda.bzl. Every label here
is relative to that repository (Label("//...")), so the hub may have any name. Works with Bazel 4.2.3.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")
load("@rules_cc//cc:defs.bzl", "cc_binary", "cc_test")

# Bazel 4.2.3 has these as globals only (Debian's rules_cc 0.0.4 does not export them).
# buildifier: disable=native-cc-info
_CcInfo = CcInfo

# buildifier: disable=native-cc-common
_cc_common = cc_common

# Bazel 4.2.3 takes toolchain types as strings only; str(Label()) names this repository, whatever its name.
_NVCC_TOOLCHAIN = str(Label("//toolchain:nvcc_toolchain_type"))
_CC_TOOLCHAIN = "@bazel_tools//tools/cpp:toolchain_type"

CudaCapabilitiesInfo = provider(
    doc = "The value of a capabilities setting: GPU capabilities such as 8.0 or 9.0a.",
    fields = {"capabilities": "list of capability names; empty: the generated defaults"},
)

CudaGencodeInfo = provider(
    doc = "The generated -gencode defaults of the configured CUDA version and target platform.",
    fields = {
        "cuda_version": "the CUDA version",
        "flags": "the default -gencode flags",
        "forward_compat": "whether PTX of the newest plain capability is embedded",
        "supported": "the capability names this CUDA version supports",
    },
)

def _cuda_capabilities_impl(ctx):
    return [CudaCapabilitiesInfo(capabilities = [c for c in ctx.build_setting_value if c])]

cuda_capabilities = rule(
    implementation = _cuda_capabilities_impl,
    build_setting = config.string_list(flag = True),
    doc = "--@cuda//:capabilities=8.0,9.0: the GPU capabilities to compile for instead of the generated defaults.",
)

def _cuda_version_impl(ctx):
    v = ctx.build_setting_value
    if v not in ctx.attr.values:
        if v in ctx.attr.generated:
            fail("%s=%s: CUDA %s was generated but is not enabled (cuda_repositories(versions = ...) or the cuda.toolkit tag); enabled: %s" % (
                ctx.attr.flag,
                v,
                v,
                ", ".join(ctx.attr.values),
            ))
        fail("%s=%s: this repository was generated for CUDA %s" % (ctx.attr.flag, v, ", ".join(ctx.attr.generated)))
    return []

cuda_version = rule(
    implementation = _cuda_version_impl,
    build_setting = config.string(flag = True),
    attrs = {
        "flag": attr.string(mandatory = True, doc = "the flag as users write it, for messages"),
        "generated": attr.string_list(mandatory = True, doc = "every CUDA version the repository was generated for"),
        "values": attr.string_list(mandatory = True, doc = "the enabled ones"),
    },
    doc = "--@cuda//:version: the CUDA version the hub's targets select; fails on a version that is not enabled.",
)

CudaHostCompilerInfo = provider(
    doc = "The value of the host compiler setting.",
    fields = {"path": "the compiler nvcc runs (-ccbin); empty: found for the CUDA version, else the C++ toolchain's"},
)

def _cuda_host_compiler_impl(ctx):
    return [CudaHostCompilerInfo(path = ctx.build_setting_value)]

cuda_host_compiler = rule(
    implementation = _cuda_host_compiler_impl,
    build_setting = config.string(flag = True),
    doc = "--@cuda//:host_compiler=/usr/bin/g++-11: the host compiler nvcc uses, checked against nvcc's supported range.",
)

def _cuda_gencode_impl(ctx):
    return [CudaGencodeInfo(
        cuda_version = ctx.attr.cuda_version,
        flags = ctx.attr.flags,
        forward_compat = ctx.attr.forward_compat,
        supported = ctx.attr.supported,
    )]

cuda_gencode = rule(
    implementation = _cuda_gencode_impl,
    attrs = {
        "cuda_version": attr.string(),
        "flags": attr.string_list(),
        "forward_compat": attr.bool(),
        "supported": attr.string_list(),
    },
    doc = "The generated -gencode defaults (core/gpu.Gencode), selected per CUDA version and target platform.",
)

def _cuda_toolchain_impl(ctx):
    return [platform_common.ToolchainInfo(
        cuda_version = ctx.attr.cuda_version,
        host_compiler = ctx.attr.host_compiler,
        host_compilers = ctx.attr.host_compilers,
        nvcc = ctx.executable.nvcc,
        nvcc_files = depset(transitive = [f[DefaultInfo].files for f in ctx.attr.nvcc_files]),
    )]

cuda_toolchain = rule(
    implementation = _cuda_toolchain_impl,
    attrs = {
        "cuda_version": attr.string(mandatory = True),
        "host_compiler": attr.string(doc = "the host compiler found within the supported range (the configuration repository's probe); empty: the C++ toolchain's"),
        "host_compilers": attr.string_dict(doc = "family (gcc, clang) -> inclusive major range \"lo-hi\""),
        "nvcc": attr.label(mandatory = True, allow_single_file = True, executable = True, cfg = "exec"),
        "nvcc_files": attr.label_list(allow_files = True, cfg = "exec"),
    },
    doc = "nvcc of one CUDA version for one exec platform.",
)

def _capability_digits(name):
    c = name.lower()
    for prefix in ["sm_", "compute_"]:
        if c.startswith(prefix):
            c = c[len(prefix):]
            if len(c) >= 2:
                c = c[:-1] + "." + c[-1:] if c[-1].isdigit() else c[:-2] + "." + c[-2:]
    return c

def _gencode(names, forward_compat, supported, cuda_version, where):
    flags = []
    ptx = None
    for name in names:
        canonical = _capability_digits(name)
        if canonical not in supported:
            fail("%s: GPU capability %s is not supported by CUDA %s; supported: %s" % (where, name, cuda_version, ", ".join(supported)))
        d = canonical.replace(".", "")
        flag = "-gencode=arch=compute_%s,code=sm_%s" % (d, d)
        if flag not in flags:
            flags.append(flag)
        if not (d.endswith("a") or d.endswith("f")):
            ptx = d
    if forward_compat and ptx:
        flags.append("-gencode=arch=compute_%s,code=compute_%s" % (ptx, ptx))
    return flags

# Run once per cuda_library: the host compiler's family and major version from its predefined macros
# (clang reports a fixed -dumpversion, the macros are reliable), checked against nvcc's range.
_HOST_CHECK = """\
cc="$1"; out="$2"; cuda="$3"; gcc="$4"; clang="$5"
macros=$("$cc" -dM -E -x c /dev/null) || { echo "cuda: cannot run the host compiler $cc" >&2; exit 1; }
if printf '%s\\n' "$macros" | grep -q '^#define __clang__ '; then
  family=clang; range=$clang; major=$(printf '%s\\n' "$macros" | sed -n 's/^#define __clang_major__ //p')
else
  family=gcc; range=$gcc; major=$(printf '%s\\n' "$macros" | sed -n 's/^#define __GNUC__ //p')
fi
if [ -n "$range" ]; then
  lo=${range%-*}; hi=${range#*-}
  if [ "$major" -lt "$lo" ] || [ "$major" -gt "$hi" ]; then
    echo "host compiler $cc: $family $major is not supported by nvcc from CUDA $cuda: supported $family $lo to $hi" >&2
    exit 1
  fi
fi
echo "$family $major" > "$out"
"""

def _cuda_library_impl(ctx):
    tc = ctx.toolchains[_NVCC_TOOLCHAIN]
    cc_toolchain = find_cpp_toolchain(ctx)
    gencode_info = ctx.attr._gencode[CudaGencodeInfo]
    if gencode_info.cuda_version and gencode_info.cuda_version != tc.cuda_version:
        fail("%s: the nvcc toolchain is CUDA %s, the configuration CUDA %s" % (ctx.label, tc.cuda_version, gencode_info.cuda_version))
    names = ctx.attr.capabilities or ctx.attr._capabilities[CudaCapabilitiesInfo].capabilities
    if names:
        gencode = _gencode(names, gencode_info.forward_compat, gencode_info.supported, tc.cuda_version, str(ctx.label))
    else:
        gencode = gencode_info.flags

    # The host compiler: --@cuda//:host_compiler, else the newest one within nvcc's range found on this
    # machine, else the C++ toolchain's. The check action below fails with the range on a wrong one.
    cc = ctx.attr._host_compiler[CudaHostCompilerInfo].path or tc.host_compiler or cc_toolchain.compiler_executable
    cc_files = cc_toolchain.all_files
    check = ctx.actions.declare_file("_cuda/%s/host_compiler" % ctx.label.name)
    ctx.actions.run_shell(
        outputs = [check],
        inputs = cc_files,
        command = _HOST_CHECK,
        arguments = [cc, check.path, tc.cuda_version, tc.host_compilers.get("gcc", ""), tc.host_compilers.get("clang", "")],
        mnemonic = "NvccHostCompilerCheck",
        progress_message = "Checking the host compiler of nvcc for %s" % ctx.label,
    )

    cc_infos = [d[_CcInfo] for d in ctx.attr.deps] + [d[_CcInfo] for d in ctx.attr._cuda]
    headers_info = _cc_common.merge_cc_infos(cc_infos = cc_infos + [ctx.attr._headers[_CcInfo]])
    cctx = headers_info.compilation_context
    args_common = ["-ccbin", cc] + gencode
    for d in cctx.defines.to_list():
        args_common.append("-D" + d)
    for i in cctx.includes.to_list():
        args_common += ["-I", i]

    # nvcc has no -iquote: quote includes become -I (a superset: <> includes search them too).
    for i in cctx.quote_includes.to_list():
        args_common += ["-I", i]
    for i in cctx.system_includes.to_list():
        args_common += ["-isystem", i]

    # nvcc.profile's INCLUDES is $(TOP)/$(_TARGET_DIR_)/include, a folder of the
    # full toolkit that no redistributable archive has: nvcc's own include/
    # (fatbinary_section.h, which the host half of every compile includes) is
    # given here, after the target's headers.
    args_common += ["-isystem", tc.nvcc.dirname.rpartition("/")[0] + "/include"]
    args_common += ["--compiler-options", "-fPIC"] + ctx.attr.copts

    inputs = depset(
        direct = ctx.files.srcs + ctx.files.hdrs + [check],
        transitive = [cctx.headers, cc_files, tc.nvcc_files],
    )
    objects = []
    for src in ctx.files.srcs:
        obj = ctx.actions.declare_file("_objs/%s/%s.o" % (ctx.label.name, src.basename[:-len(src.extension) - 1]))
        ctx.actions.run(
            executable = tc.nvcc,
            arguments = ["-x", "cu", "-c", src.path, "-o", obj.path] + args_common,
            inputs = inputs,
            outputs = [obj],
            # nvcc runs its tools (cicc, ptxas, fatbinary) through the shell: its own folder first (an
            # archive's bin holds them all; a local install's links them), then the system's, which
            # Debian's nvcc.profile expects.
            env = {"PATH": tc.nvcc.dirname + ":/usr/bin:/bin"},
            mnemonic = "NvccCompile",
            progress_message = "Compiling %s with nvcc %s" % (src.short_path, tc.cuda_version),
        )
        objects.append(obj)

    feature_configuration = _cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    libraries = []
    if objects:
        archive = ctx.actions.declare_file("lib%s.a" % ctx.label.name)
        ctx.actions.run(
            executable = cc_toolchain.ar_executable,
            arguments = ["rcsD", archive.path] + [o.path for o in objects],
            inputs = depset(objects, transitive = [cc_files]),
            outputs = [archive],
            mnemonic = "NvccArchive",
        )
        libraries.append(_cc_common.create_library_to_link(
            actions = ctx.actions,
            feature_configuration = feature_configuration,
            cc_toolchain = cc_toolchain,
            static_library = archive,
            alwayslink = True,
        ))
    own = _CcInfo(
        compilation_context = _cc_common.create_compilation_context(headers = depset(ctx.files.hdrs)),
        linking_context = _cc_common.create_linking_context(linker_inputs = depset([_cc_common.create_linker_input(
            owner = ctx.label,
            libraries = depset(libraries),
        )])),
    )
    return [
        DefaultInfo(files = depset(objects)),
        _cc_common.merge_cc_infos(direct_cc_infos = [own], cc_infos = cc_infos),
    ]

cuda_library = rule(
    implementation = _cuda_library_impl,
    attrs = {
        "capabilities": attr.string_list(doc = "GPU capabilities (8.0, 9.0a) for this target; overrides --@cuda//:capabilities"),
        "copts": attr.string_list(doc = "extra nvcc options"),
        "deps": attr.label_list(providers = [_CcInfo]),
        "hdrs": attr.label_list(allow_files = True),
        "srcs": attr.label_list(allow_files = [".cu"], mandatory = True),
        "_capabilities": attr.label(default = Label("//:capabilities")),
        "_cc_toolchain": attr.label(default = Label("@bazel_tools//tools/cpp:current_cc_toolchain")),
        "_cuda": attr.label_list(default = [Label("//toolchain:runtime")], providers = [_CcInfo]),
        "_gencode": attr.label(default = Label("//toolchain:gencode")),
        "_headers": attr.label(default = Label("//toolchain:headers"), providers = [_CcInfo]),
        "_host_compiler": attr.label(default = Label("//:host_compiler")),
    },
    fragments = ["cpp"],
    toolchains = [_NVCC_TOOLCHAIN, _CC_TOOLCHAIN],
    doc = "Compiles .cu files with the nvcc toolchain; cc_binary and cc_test link the result (_CcInfo).",
)

def _cuda_stub_library_impl(ctx):
    # The stubs go on the link line by path, not as libraries: the linker
    # records their SONAME (libcuda.so.1) as NEEDED, and Bazel adds no
    # RUNPATH or runfiles entry for them, so the host driver's library is the
    # one loaded at run time.
    stubs = ctx.files.stubs
    own = _CcInfo(linking_context = _cc_common.create_linking_context(linker_inputs = depset([_cc_common.create_linker_input(
        owner = ctx.label,
        user_link_flags = depset([f.path for f in stubs]),
        additional_inputs = depset(stubs),
    )])))
    return [_cc_common.merge_cc_infos(direct_cc_infos = [own], cc_infos = [d[_CcInfo] for d in ctx.attr.deps])]

cuda_stub_library = rule(
    implementation = _cuda_stub_library_impl,
    attrs = {
        "deps": attr.label_list(providers = [_CcInfo], doc = "headers to compile against (the package's)"),
        "stubs": attr.label_list(allow_files = [".so"], mandatory = True, doc = "link stubs (lib/stubs/libcuda.so)"),
    },
    doc = "Links against driver stubs (libcuda.so, libnvidia-ml.so) without putting them on the run-time search path.",
)

def _split(name, srcs, deps, copts, capabilities, hdrs, testonly):
    cu = [s for s in srcs if s.endswith(".cu")]
    other = [s for s in srcs if not s.endswith(".cu")]
    if not cu:
        return other, deps
    cuda_library(
        name = name + "_cuda",
        srcs = cu,
        hdrs = hdrs,
        deps = deps,
        copts = copts,
        capabilities = capabilities,
        testonly = testonly,
        visibility = ["//visibility:private"],
    )
    return other, deps + [":" + name + "_cuda"]

def cuda_binary(name, srcs = [], hdrs = [], deps = [], cuda_copts = [], capabilities = [], **kwargs):
    """A cc_binary whose .cu sources are compiled by a cuda_library named <name>_cuda.

    Args:
      name: the binary's name.
      srcs: C, C++ and .cu sources.
      hdrs: headers of the .cu sources.
      deps: _CcInfo dependencies of both.
      cuda_copts: extra nvcc options.
      capabilities: GPU capabilities, overriding --@cuda//:capabilities.
      **kwargs: passed to cc_binary.
    """
    other, all_deps = _split(name, srcs, deps, cuda_copts, capabilities, hdrs, kwargs.get("testonly", False))
    cc_binary(name = name, srcs = other, deps = all_deps, **kwargs)

def cuda_test(name, srcs = [], hdrs = [], deps = [], cuda_copts = [], capabilities = [], **kwargs):
    """A cc_test whose .cu sources are compiled by a cuda_library named <name>_cuda.

    Args:
      name: the test's name.
      srcs: C, C++ and .cu sources.
      hdrs: headers of the .cu sources.
      deps: _CcInfo dependencies of both.
      cuda_copts: extra nvcc options.
      capabilities: GPU capabilities, overriding --@cuda//:capabilities.
      **kwargs: passed to cc_test.
    """
    other, all_deps = _split(name, srcs, deps, cuda_copts, capabilities, hdrs, True)
    cc_test(name = name, srcs = other, deps = all_deps, **kwargs)
