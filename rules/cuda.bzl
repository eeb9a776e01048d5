"""CUDA rules: cuda_library, cuda_objects, cuda_device_link, cuda_binary, cuda_test, the toolchain and the settings.

cudapkgs generate copies this file into the repository it writes as //rules:cuda.bzl. Every label here
is relative to that repository (Label("//...")), so the hub may have any name. Works with Bazel 4.2.3.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")

# CcInfo and cc_common from rules_cc, never Bazel's globals: Bazel 9 has
# none. defs.bzl exports them in every rules_cc release, from Debian's 0.0.4
# (Bazel 4.2.3) to the 0.2.x line Bazel 9 needs.
load("@rules_cc//cc:defs.bzl", "CcInfo", "cc_binary", "cc_common", "cc_test")
load("//:remote.bzl", "GPU_TEST_EXEC_PROPERTIES")

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

CudaSettingInfo = provider(
    doc = "The value of one of the hub's build settings (copts, runtime, compiler...).",
    fields = {"value": "the setting's value"},
)

def _cuda_string_setting_impl(ctx):
    v = ctx.build_setting_value
    if ctx.attr.values and v not in ctx.attr.values:
        fail("%s=%s: expected one of %s" % (ctx.attr.flag, v, ", ".join(ctx.attr.values)))
    return [CudaSettingInfo(value = v)]

cuda_string_setting = rule(
    implementation = _cuda_string_setting_impl,
    build_setting = config.string(flag = True),
    attrs = {
        "flag": attr.string(mandatory = True, doc = "the flag as users write it, for messages"),
        "values": attr.string_list(doc = "the allowed values; empty: any"),
    },
    doc = "A string flag of the hub (--@cuda//:runtime, --@cuda//:compiler, --@cuda//:clang).",
)

def _cuda_list_setting_impl(ctx):
    return [CudaSettingInfo(value = [v for v in ctx.build_setting_value if v])]

cuda_list_setting = rule(
    implementation = _cuda_list_setting_impl,
    build_setting = config.string_list(flag = True),
    doc = "A list flag of the hub (--@cuda//:copts, --@cuda//:host_copts), comma-separated on the command line.",
)

def _cuda_bool_setting_impl(ctx):
    return [CudaSettingInfo(value = ctx.build_setting_value)]

cuda_bool_setting = rule(
    implementation = _cuda_bool_setting_impl,
    build_setting = config.bool(flag = True),
    doc = "A boolean flag of the hub (--@cuda//:lineinfo).",
)

def cuda_build_settings(name):
    """The hub's flags for every cuda_library, and config_settings on them.

    Args:
      name: the hub's name, for messages (--@<name>//:runtime).
    """
    hub = name
    cuda_list_setting(name = "copts", build_setting_default = [])
    cuda_list_setting(name = "host_copts", build_setting_default = [])
    cuda_bool_setting(name = "lineinfo", build_setting_default = False)
    cuda_string_setting(name = "runtime", build_setting_default = "shared", flag = "--@%s//:runtime" % hub, values = ["shared", "static", "none"])
    cuda_string_setting(name = "cudadevrt", build_setting_default = "static", flag = "--@%s//:cudadevrt" % hub, values = ["static", "none"])
    cuda_string_setting(name = "compiler", build_setting_default = "nvcc", flag = "--@%s//:compiler" % hub, values = ["nvcc", "clang"])
    cuda_string_setting(name = "clang", build_setting_default = "", flag = "--@%s//:clang" % hub)
    native.config_setting(name = "runtime_static", flag_values = {":runtime": "static"})
    native.config_setting(name = "runtime_none", flag_values = {":runtime": "none"})
    native.config_setting(name = "compiler_clang", flag_values = {":compiler": "clang"})

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
        clang_error = ctx.attr.clang_error,
        clang_min = ctx.attr.clang_min,
        cuda_version = ctx.attr.cuda_version,
        host_compiler = ctx.attr.host_compiler,
        host_compilers = ctx.attr.host_compilers,
        nvcc = ctx.executable.nvcc,
        nvcc_files = depset(transitive = [f[DefaultInfo].files for f in ctx.attr.nvcc_files]),
    )]

cuda_toolchain = rule(
    implementation = _cuda_toolchain_impl,
    attrs = {
        "clang_error": attr.string(doc = "why no clang compiles this CUDA version (clang_min 0)"),
        "clang_min": attr.int(doc = "the oldest clang major that compiles this CUDA version (core/gpu's clang table)"),
        "cuda_version": attr.string(mandatory = True),
        "host_compiler": attr.string(doc = "the host compiler found within the supported range (the configuration repository's probe); empty: the C++ toolchain's"),
        "host_compilers": attr.string_dict(doc = "family (gcc, clang) -> inclusive major range \"lo-hi\""),
        "nvcc": attr.label(mandatory = True, allow_single_file = True, executable = True, cfg = "exec"),
        "nvcc_files": attr.label_list(allow_files = True, cfg = "exec"),
    },
    doc = "nvcc of one CUDA version for one exec platform (its ptxas, fatbinary and libdevice serve clang too).",
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

_CLANG_CHECK = """\
cc="$1"; out="$2"; cuda="$3"; min="$4"
macros=$("$cc" -dM -E -x c /dev/null) || { echo "cuda: cannot run the CUDA compiler $cc" >&2; exit 1; }
major=$(printf '%s\\n' "$macros" | sed -n 's/^#define __clang_major__ //p')
if [ -z "$major" ]; then
  echo "--@cuda//:compiler=clang: $cc is not clang (set --@cuda//:clang=/usr/bin/clang++-N)" >&2
  exit 1
fi
if [ "$major" -lt "$min" ]; then
  echo "clang $cc: clang $major does not compile CUDA $cuda: cudapkgs' clang table needs clang $min or newer" >&2
  exit 1
fi
echo "clang $major" > "$out"
"""

# The tools and data clang looks for below --cuda-path, by the path it
# expects there and the ending of the file that serves it.
_CLANG_TREE = [
    ("bin/ptxas", "/bin/ptxas"),
    ("bin/fatbinary", "/bin/fatbinary"),
    ("nvvm/libdevice/libdevice.10.bc", "/nvvm/libdevice/libdevice.10.bc"),
]

def _find(files, ending):
    for f in files:
        if f.path.endswith(ending):
            return f
    return None

def _clang_cuda_path(ctx, tc, headers):
    """A folder shaped like a CUDA install for clang's --cuda-path.

    clang reads the CUDA version from include/cuda.h (the target's runtime
    headers) and runs ptxas and fatbinary and links libdevice from the exec
    platform's compiler archive: symlinks to those files, no copies.
    """
    root = "_cuda/%s/cuda" % ctx.label.name
    links = []
    wanted = [("include/cuda.h", "/include/cuda.h", headers)] + [(p, e, tc.nvcc_files.to_list()) for p, e in _CLANG_TREE]
    for path, ending, files in wanted:
        f = _find(files, ending)
        if not f:
            fail("%s: --@cuda//:compiler=clang needs %s of CUDA %s, which the toolchain's archives lack" % (ctx.label, path, tc.cuda_version))
        link = ctx.actions.declare_file(root + "/" + path)
        ctx.actions.symlink(output = link, target_file = f)
        links.append(link)
    return links[0].dirname.rpartition("/")[0], links

def _arches(gencode):
    """The sm_XX of -gencode flags: the SASS clang builds (it adds PTX itself)."""
    out = []
    for g in gencode:
        code = g.rpartition("code=")[2]
        if code.startswith("sm_") and code not in out:
            out.append(code)
    return out

def _setting(ctx, name):
    return getattr(ctx.attr, "_" + name)[CudaSettingInfo].value

def _include_paths(ctx):
    """The includes attribute as cc_library has it: package-relative, in the source and output trees."""
    out = []
    for inc in ctx.attr.includes:
        parts = [p for p in [ctx.label.workspace_root, ctx.label.package, inc] if p and p != "."]
        path = "/".join(parts) or "."
        out += [path, ctx.bin_dir.path + "/" + path]
    return out

def _compile(ctx):
    """Compiles the .cu sources of a cuda_library or cuda_objects.

    Returns a struct: the objects, the compilation context others compile
    against, the CcInfo of the dependencies, and the CudaInfo.
    """
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
    compiler = _setting(ctx, "compiler")
    clang = compiler == "clang"
    cc_files = cc_toolchain.all_files

    # nvcc's host compiler: --@cuda//:host_compiler, else the newest one within nvcc's range found on this
    # machine, else the C++ toolchain's. clang: --@cuda//:clang, else the C++ toolchain's compiler.
    # The check action fails with the range (nvcc) or the clang table (clang).
    check = ctx.actions.declare_file("_cuda/%s/%s" % (ctx.label.name, "clang" if clang else "host_compiler"))
    if clang:
        if not tc.clang_min:
            fail("%s: --@cuda//:compiler=clang: %s" % (ctx.label, tc.clang_error))
        cc = _setting(ctx, "clang") or cc_toolchain.compiler_executable
        ctx.actions.run_shell(
            outputs = [check],
            inputs = cc_files,
            command = _CLANG_CHECK,
            arguments = [cc, check.path, tc.cuda_version, str(tc.clang_min)],
            mnemonic = "ClangCudaCheck",
            progress_message = "Checking clang as the CUDA compiler for %s" % ctx.label,
        )
    else:
        cc = ctx.attr._host_compiler[CudaHostCompilerInfo].path or tc.host_compiler or cc_toolchain.compiler_executable
        ctx.actions.run_shell(
            outputs = [check],
            inputs = cc_files,
            command = _HOST_CHECK,
            arguments = [cc, check.path, tc.cuda_version, tc.host_compilers.get("gcc", ""), tc.host_compilers.get("clang", "")],
            # A compiler given by name (the configuration repository's probe) is found on this PATH, as nvcc
            # finds it; gcc run by name with no PATH cannot find its own cc1.
            env = {"PATH": "/usr/bin:/bin"},
            mnemonic = "NvccHostCompilerCheck",
            progress_message = "Checking the host compiler of nvcc for %s" % ctx.label,
        )

    dep_infos = [d[CcInfo] for d in ctx.attr.deps if CcInfo in d] + [d[CcInfo] for d in ctx.attr._cuda]
    toolchain_headers = [ctx.attr._headers[CcInfo]] + ([ctx.attr._clang_headers[CcInfo]] if clang else [])
    cctx = cc_common.merge_cc_infos(cc_infos = dep_infos + toolchain_headers).compilation_context
    includes = _include_paths(ctx)
    own_cctx = cc_common.create_compilation_context(
        headers = depset(ctx.files.hdrs),
        defines = depset(ctx.attr.defines),
        system_includes = depset(includes),
    )

    args = []
    for d in cctx.defines.to_list() + ctx.attr.defines + ctx.attr.local_defines:
        args.append("-D" + d)
    for i in cctx.includes.to_list():
        args += ["-I", i]

    # nvcc has no -iquote: quote includes become -I (a superset: <> includes search them too).
    for i in cctx.quote_includes.to_list():
        args += (["-iquote", i] if clang else ["-I", i])
    for i in includes + cctx.system_includes.to_list():
        args += ["-isystem", i]

    # nvcc.profile's INCLUDES is $(TOP)/$(_TARGET_DIR_)/include, a folder of the
    # full toolkit that no redistributable archive has: nvcc's own include/
    # (fatbinary_section.h, which the host half of every compile includes) is
    # given here, after the target's headers.
    args += ["-isystem", tc.nvcc.dirname.rpartition("/")[0] + "/include"]

    mode = ctx.var.get("COMPILATION_MODE", "fastbuild")
    lineinfo = _setting(ctx, "lineinfo")
    extra_inputs = []
    if clang:
        cuda_path, extra_inputs = _clang_cuda_path(ctx, tc, cctx.headers.to_list())
        first = ["--cuda-path=" + cuda_path] + ["--cuda-gpu-arch=" + a for a in _arches(gencode)]

        # The old offload driver: objects nvcc's device link (nvlink) reads, as nvcc's are.
        first += ["--no-offload-new-driver", "-Wno-unknown-cuda-version", "-fPIC"]
        if ctx.attr.rdc:
            first.append("-fgpu-rdc")
        if mode == "dbg":
            first += ["-g"] + ([] if lineinfo else ["--cuda-noopt-device-debug"])
        elif mode == "opt":
            first.append("-O3")
        host_flag, ptxas_flag = "-Xarch_host", "-Xcuda-ptxas"
    else:
        first = ["-ccbin", cc] + gencode
        if ctx.attr.rdc:
            first.append("-rdc=true")
        if mode == "dbg":
            first += ["-g", "-lineinfo" if lineinfo else "-G"]
        elif mode == "opt":
            first.append("-O3")
        if lineinfo and mode != "dbg":
            first.append("-lineinfo")
        first += ["--compiler-options", "-fPIC"]
        host_flag, ptxas_flag = "-Xcompiler", "-Xptxas"
    last = list(_setting(ctx, "copts"))
    for o in _setting(ctx, "host_copts") + ctx.attr.host_copts:
        last += [host_flag, o]
    for o in ctx.attr.ptxasopts:
        last += [ptxas_flag, o]
    last += ctx.attr.copts

    private_headers = [f for f in ctx.files.srcs if f.extension != "cu"]
    inputs = depset(
        direct = ctx.files.srcs + ctx.files.hdrs + [check] + extra_inputs,
        transitive = [cctx.headers, cc_files, tc.nvcc_files],
    )
    objects = []
    for src in ctx.files.srcs:
        if src in private_headers:
            continue
        obj = ctx.actions.declare_file("_objs/%s/%s.o" % (ctx.label.name, src.basename[:-len(src.extension) - 1]))
        if clang:
            # Each translation unit's CUDA id names its device-link
            # registration: newer clang (23) no longer derives distinct ones
            # from the input by default, and two objects with one id make the
            # device link define the same function twice. The object's path
            # is unique in the build and the same on every run.
            cuid = "-cuid=c" + str(hash(obj.path)).replace("-", "m")
            ctx.actions.run(
                executable = cc,
                arguments = ["-x", "cuda", "-c", src.path, "-o", obj.path, cuid] + first + args + last,
                inputs = inputs,
                outputs = [obj],
                env = {"PATH": "/usr/bin:/bin"},
                mnemonic = "ClangCudaCompile",
                progress_message = "Compiling %s with clang for CUDA %s" % (src.short_path, tc.cuda_version),
            )
        else:
            ctx.actions.run(
                executable = tc.nvcc,
                arguments = ["-x", "cu", "-c", src.path, "-o", obj.path] + _nvcc_reproducible(tc.cuda_version, src) + first + args + last,
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

    deps_cuda = [d[CudaInfo] for d in ctx.attr.deps if CudaInfo in d]
    rdc = objects if ctx.attr.rdc else []
    cuda_info = CudaInfo(
        objects = depset(objects, transitive = [c.objects for c in deps_cuda]),
        rdc_objects = depset(rdc, transitive = [c.rdc_objects for c in deps_cuda]),
        rdc_gencode = depset(gencode if rdc else [], transitive = [c.rdc_gencode for c in deps_cuda]),
    )
    return struct(
        cc_toolchain = cc_toolchain,
        cctx = own_cctx,
        cuda_info = cuda_info,
        dep_infos = dep_infos,
        deps_cuda = deps_cuda,
        objects = objects,
    )

CudaInfo = provider(
    doc = "What cuda_library and cuda_objects compiled, for cuda_library (objects of cuda_objects deps) and the device link.",
    fields = {
        "objects": "depset of objects no archive holds yet (cuda_objects', through cuda_objects deps): the next cuda_library archives them",
        "rdc_gencode": "depset of the -gencode flags of relocatable device code, transitively (the device link's)",
        "rdc_objects": "depset of the relocatable device code objects, transitively through cuda deps",
    },
)

def _static_library(ctx, cc_toolchain, name, objects, alwayslink):
    archive = ctx.actions.declare_file("lib%s.a" % name)
    ctx.actions.run(
        executable = cc_toolchain.ar_executable,
        arguments = ["rcsD", archive.path] + [o.path for o in objects],
        inputs = depset(objects, transitive = [cc_toolchain.all_files]),
        outputs = [archive],
        mnemonic = "NvccArchive",
    )
    return _library(ctx, cc_toolchain, archive, alwayslink)

def _library(ctx, cc_toolchain, archive, alwayslink):
    feature_configuration = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    return cc_common.create_library_to_link(
        actions = ctx.actions,
        feature_configuration = feature_configuration,
        cc_toolchain = cc_toolchain,
        static_library = archive,
        alwayslink = alwayslink,
    )

def _cuda_library_impl(ctx):
    c = _compile(ctx)

    # The objects of cuda_objects deps are this library's too (and, archived
    # here, no one else's).
    objects = c.cuda_info.objects.to_list()
    libraries = [_static_library(ctx, c.cc_toolchain, ctx.label.name, objects, True)] if objects else []
    own = CcInfo(
        compilation_context = c.cctx,
        linking_context = cc_common.create_linking_context(linker_inputs = depset([cc_common.create_linker_input(
            owner = ctx.label,
            libraries = depset(libraries),
        )])),
    )
    return [
        DefaultInfo(files = depset(c.objects)),
        cc_common.merge_cc_infos(direct_cc_infos = [own], cc_infos = c.dep_infos),
        CudaInfo(objects = depset(), rdc_objects = c.cuda_info.rdc_objects, rdc_gencode = c.cuda_info.rdc_gencode),
    ]

def _cuda_objects_impl(ctx):
    c = _compile(ctx)
    own = CcInfo(compilation_context = c.cctx)
    return [
        DefaultInfo(files = depset(c.objects)),
        cc_common.merge_cc_infos(direct_cc_infos = [own], cc_infos = c.dep_infos),
        c.cuda_info,
    ]

_COMPILE_ATTRS = {
    "capabilities": attr.string_list(doc = "GPU capabilities (8.0, 9.0a) for this target; overrides --@cuda//:capabilities"),
    "copts": attr.string_list(doc = "compiler options (nvcc's, or clang's with --@cuda//:compiler=clang)"),
    "defines": attr.string_list(doc = "-D for this target and every target that depends on it"),
    "deps": attr.label_list(providers = [[CcInfo], [CudaInfo]]),
    "hdrs": attr.label_list(allow_files = True, doc = "headers of this library for its dependents"),
    "host_copts": attr.string_list(doc = "host compiler options (nvcc -Xcompiler; clang -Xarch_host)"),
    "includes": attr.string_list(doc = "package-relative include folders, -isystem for this target and its dependents"),
    "local_defines": attr.string_list(doc = "-D for this target only"),
    "ptxasopts": attr.string_list(doc = "ptxas options (nvcc -Xptxas; clang -Xcuda-ptxas)"),
    "rdc": attr.bool(doc = "relocatable device code (-rdc=true; clang -fgpu-rdc): device code may call __device__ functions of other files; a cuda_binary, cuda_test or cuda_device_link links it"),
    "srcs": attr.label_list(allow_files = [".cu", ".cuh", ".h", ".hh", ".hpp", ".inl"], doc = ".cu files to compile, and private headers"),
    "_capabilities": attr.label(default = Label("//:capabilities")),
    "_cc_toolchain": attr.label(default = Label("@bazel_tools//tools/cpp:current_cc_toolchain")),
    "_clang": attr.label(default = Label("//:clang")),
    "_clang_headers": attr.label(default = Label("//toolchain:clang_headers"), providers = [CcInfo]),
    "_compiler": attr.label(default = Label("//:compiler")),
    "_copts": attr.label(default = Label("//:copts")),
    "_cuda": attr.label_list(default = [Label("//toolchain:runtime")], providers = [CcInfo]),
    "_gencode": attr.label(default = Label("//toolchain:gencode")),
    "_headers": attr.label(default = Label("//toolchain:headers"), providers = [CcInfo]),
    "_host_compiler": attr.label(default = Label("//:host_compiler")),
    "_host_copts": attr.label(default = Label("//:host_copts")),
    "_lineinfo": attr.label(default = Label("//:lineinfo")),
}

cuda_library = rule(
    implementation = _cuda_library_impl,
    attrs = _COMPILE_ATTRS,
    fragments = ["cpp"],
    toolchains = [_NVCC_TOOLCHAIN, _CC_TOOLCHAIN],
    doc = "Compiles .cu files with nvcc (or clang) into an archive that cc_binary and cc_test link (CcInfo).",
)

cuda_objects = rule(
    implementation = _cuda_objects_impl,
    attrs = _COMPILE_ATTRS,
    fragments = ["cpp"],
    toolchains = [_NVCC_TOOLCHAIN, _CC_TOOLCHAIN],
    doc = "Compiles .cu files into objects without linking them: a cuda_library's deps or a cc_library's srcs take them.",
)

_RdcInfo = provider(
    doc = "The relocatable device code below a target, gathered along deps by the device link's aspect.",
    fields = {"gencode": "depset of -gencode flags", "objects": "depset of objects"},
)

def _rdc_aspect_impl(target, ctx):
    objects = [d[_RdcInfo].objects for d in getattr(ctx.rule.attr, "deps", []) if _RdcInfo in d]
    gencode = [d[_RdcInfo].gencode for d in getattr(ctx.rule.attr, "deps", []) if _RdcInfo in d]
    if CudaInfo in target:
        objects.append(target[CudaInfo].rdc_objects)
        gencode.append(target[CudaInfo].rdc_gencode)
    return [_RdcInfo(objects = depset(transitive = objects), gencode = depset(transitive = gencode))]

# Along deps, through cc_library and friends: every rdc object of a program,
# wherever it sits in the graph.
_rdc_aspect = aspect(implementation = _rdc_aspect_impl, attr_aspects = ["deps"])

def _cuda_device_link_impl(ctx):
    objects = depset(transitive = [d[_RdcInfo].objects for d in ctx.attr.deps]).to_list()
    if not objects:
        return [CcInfo()]
    tc = ctx.toolchains[_NVCC_TOOLCHAIN]
    cc_toolchain = find_cpp_toolchain(ctx)
    gencode = [g for g in depset(transitive = [d[_RdcInfo].gencode for d in ctx.attr.deps]).to_list() if "code=sm_" in g]
    cc = ctx.attr._host_compiler[CudaHostCompilerInfo].path or tc.host_compiler or cc_toolchain.compiler_executable
    devrt = ctx.attr._cudadevrt_mode[CudaSettingInfo].value
    devrt_files = ctx.files._cudadevrt
    args = ["-dlink", "-o", None, "-ccbin", cc] + gencode + ["--compiler-options", "-fPIC"]
    if devrt == "static":
        if not devrt_files:
            fail("%s: no libcudadevrt.a in CUDA %s's runtime for the target platform (--@cuda//:cudadevrt=none links without it)" % (ctx.label, tc.cuda_version))
        args.append("-L" + devrt_files[0].dirname)
    else:
        args += ["--cudadevrt", "none"]
        devrt_files = []
    obj = ctx.actions.declare_file("_dlink/%s.o" % ctx.label.name)
    args[2] = obj.path

    # nvcc compiles its link stub (crt/link.stub) with the host compiler: the
    # target's crt headers, as a compile gets them.
    headers = ctx.attr._headers[CcInfo].compilation_context
    for i in headers.includes.to_list() + headers.system_includes.to_list():
        args += ["-isystem", i]
    args += ["-isystem", tc.nvcc.dirname.rpartition("/")[0] + "/include"]
    ctx.actions.run(
        executable = tc.nvcc,
        arguments = args + [o.path for o in objects],
        inputs = depset(objects + devrt_files, transitive = [cc_toolchain.all_files, tc.nvcc_files, headers.headers]),
        outputs = [obj],
        env = {"PATH": tc.nvcc.dirname + ":/usr/bin:/bin"},
        mnemonic = "NvccDeviceLink",
        progress_message = "Device linking %d objects for %s with nvcc %s" % (len(objects), ctx.label, tc.cuda_version),
    )
    libraries = [_static_library(ctx, cc_toolchain, ctx.label.name + "_dlink", [obj], True)]

    # After the device link's object, which needs it.
    libraries += [_library(ctx, cc_toolchain, f, False) for f in devrt_files]
    return [
        DefaultInfo(files = depset([obj])),
        CcInfo(linking_context = cc_common.create_linking_context(linker_inputs = depset([cc_common.create_linker_input(
            owner = ctx.label,
            libraries = depset(libraries),
        )]))),
    ]

cuda_device_link = rule(
    implementation = _cuda_device_link_impl,
    attrs = {
        "deps": attr.label_list(aspects = [_rdc_aspect], doc = "the program's dependencies: every rdc object below them is device linked"),
        "_cc_toolchain": attr.label(default = Label("@bazel_tools//tools/cpp:current_cc_toolchain")),
        "_cudadevrt": attr.label(default = Label("//toolchain:cudadevrt"), allow_files = True),
        "_cudadevrt_mode": attr.label(default = Label("//:cudadevrt")),
        "_headers": attr.label(default = Label("//toolchain:headers"), providers = [CcInfo]),
        "_host_compiler": attr.label(default = Label("//:host_compiler")),
    },
    fragments = ["cpp"],
    toolchains = [_NVCC_TOOLCHAIN, _CC_TOOLCHAIN],
    doc = "The device link (nvcc -dlink) of every relocatable device code object below deps, and libcudadevrt.a: once per program, in its deps. Nothing without rdc objects.",
)

def _cuda_stub_library_impl(ctx):
    # The stubs go on the link line by path, not as libraries: the linker
    # records their SONAME (libcuda.so.1) as NEEDED, and Bazel adds no
    # RUNPATH or runfiles entry for them, so the host driver's library is the
    # one loaded at run time.
    stubs = ctx.files.stubs
    own = CcInfo(linking_context = cc_common.create_linking_context(linker_inputs = depset([cc_common.create_linker_input(
        owner = ctx.label,
        user_link_flags = depset([f.path for f in stubs]),
        additional_inputs = depset(stubs),
    )])))
    return [cc_common.merge_cc_infos(direct_cc_infos = [own], cc_infos = [d[CcInfo] for d in ctx.attr.deps])]

cuda_stub_library = rule(
    implementation = _cuda_stub_library_impl,
    attrs = {
        "deps": attr.label_list(providers = [CcInfo], doc = "headers to compile against (the package's)"),
        "stubs": attr.label_list(allow_files = [".so"], mandatory = True, doc = "link stubs (lib/stubs/libcuda.so)"),
    },
    doc = "Links against driver stubs (libcuda.so, libnvidia-ml.so) without putting them on the run-time search path.",
)

def _nvcc_reproducible(cuda_version, src):
    """nvcc options that make its object the same bytes wherever it runs (docs/remote.md).

    nvcc names its intermediate files after its process id (tmpxft_<pid>_...) and the host compiler
    records that name in the object; --objdir-as-tempdir names them after the object instead. The
    relocatable-code module id is a hash of the source's absolute path, which differs between checkouts
    and between a remote executor's action folders; cudafe++ is given the execroot-relative path, which
    is the same everywhere and still unique in the build. Both are verified from CUDA 12.4.
    """
    parts = [int(p) for p in cuda_version.split(".")[:2]]
    if parts[0] < 12 or (parts[0] == 12 and parts[1] < 4):
        return []
    return ["--objdir-as-tempdir", "-Xcudafe", "--orig_src_path_name=" + src.path]

_CUDA_SUFFIXES = (".cu", ".cuh")

def _program(rule_fn, name, srcs, hdrs, deps, cuda_copts, capabilities, cuda_attrs, kwargs):
    cu = [s for s in srcs if s.endswith(_CUDA_SUFFIXES)]
    other = [s for s in srcs if not s.endswith(_CUDA_SUFFIXES)]
    testonly = kwargs.get("testonly", False) or rule_fn == cc_test
    all_deps = list(deps)
    if [s for s in cu if s.endswith(".cu")]:
        cuda_library(
            name = name + "_cuda",
            srcs = cu,
            hdrs = hdrs,
            deps = deps,
            copts = cuda_copts,
            capabilities = capabilities,
            testonly = testonly,
            visibility = ["//visibility:private"],
            **cuda_attrs
        )
        all_deps.append(":" + name + "_cuda")
    if all_deps:
        # The device link, once for the whole program (an empty CcInfo when
        # nothing below is rdc).
        cuda_device_link(
            name = name + "_dlink",
            deps = all_deps,
            testonly = testonly,
            visibility = ["//visibility:private"],
        )
        all_deps.append(":" + name + "_dlink")

    # The program's C and C++ sources get these as well.
    for attr in ["defines", "local_defines", "includes"]:
        if cuda_attrs[attr]:
            kwargs[attr] = cuda_attrs[attr]
    rule_fn(name = name, srcs = other, deps = all_deps, **kwargs)

def cuda_binary(name, srcs = [], hdrs = [], deps = [], cuda_copts = [], capabilities = [], rdc = False, defines = [], local_defines = [], includes = [], host_copts = [], ptxasopts = [], **kwargs):
    """A cc_binary whose .cu sources are compiled by a cuda_library named <name>_cuda.

    Every relocatable device code object of the program (rdc, in any
    cuda_library below it) is device linked once, by <name>_dlink.

    Args:
      name: the binary's name.
      srcs: C, C++ and .cu sources (and .cuh headers).
      hdrs: headers of the .cu sources.
      deps: CcInfo dependencies of both.
      cuda_copts: extra nvcc (or clang) options.
      capabilities: GPU capabilities, overriding --@cuda//:capabilities.
      rdc: compile the .cu sources as relocatable device code.
      defines: defines of the cuda_library and the cc_binary.
      local_defines: local_defines of both.
      includes: includes of both.
      host_copts: cuda_library's host_copts.
      ptxasopts: cuda_library's ptxasopts.
      **kwargs: passed to cc_binary.
    """
    cuda_attrs = dict(rdc = rdc, defines = defines, local_defines = local_defines, includes = includes, host_copts = host_copts, ptxasopts = ptxasopts)
    _program(cc_binary, name, srcs, hdrs, deps, cuda_copts, capabilities, cuda_attrs, kwargs)

def cuda_test(name, srcs = [], hdrs = [], deps = [], cuda_copts = [], capabilities = [], rdc = False, defines = [], local_defines = [], includes = [], host_copts = [], ptxasopts = [], gpu = True, **kwargs):
    """A cc_test whose .cu sources are compiled by a cuda_library named <name>_cuda.

    Every relocatable device code object of the test (rdc, in any
    cuda_library below it) is device linked once, by <name>_dlink.

    Args:
      name: the test's name.
      srcs: C, C++ and .cu sources (and .cuh headers).
      hdrs: headers of the .cu sources.
      deps: CcInfo dependencies of both.
      cuda_copts: extra nvcc (or clang) options.
      capabilities: GPU capabilities, overriding --@cuda//:capabilities.
      rdc: compile the .cu sources as relocatable device code.
      defines: defines of the cuda_library and the cc_test.
      local_defines: local_defines of both.
      includes: includes of both.
      host_copts: cuda_library's host_copts.
      ptxasopts: cuda_library's ptxasopts.
      gpu: whether the test needs a GPU: its test action (only) then asks a remote executor for the hub's
        gpu_exec_property (docs/remote.md); compiling and linking go wherever they would.
      **kwargs: passed to cc_test.
    """
    if gpu and GPU_TEST_EXEC_PROPERTIES:
        kwargs["exec_properties"] = dict(GPU_TEST_EXEC_PROPERTIES, **kwargs.get("exec_properties", {}))
    cuda_attrs = dict(rdc = rdc, defines = defines, local_defines = local_defines, includes = includes, host_copts = host_copts, ptxasopts = ptxasopts)
    _program(cc_test, name, srcs, hdrs, deps, cuda_copts, capabilities, cuda_attrs, kwargs)
