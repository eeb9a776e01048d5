"""A C toolchain config for Debian's aarch64-linux-gnu cross gcc (gcc 12 on bookworm).

C only: no -lstdc++ (that needs g++-aarch64-linux-gnu).
"""

load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "ACTION_NAMES")
load("@bazel_tools//tools/cpp:cc_toolchain_config_lib.bzl", "feature", "flag_group", "flag_set", "tool_path")

_COMPILE = [
    ACTION_NAMES.c_compile,
    ACTION_NAMES.cpp_compile,
    ACTION_NAMES.cpp_header_parsing,
    ACTION_NAMES.cpp_module_compile,
    ACTION_NAMES.assemble,
    ACTION_NAMES.preprocess_assemble,
]

_LINK = [
    ACTION_NAMES.cpp_link_executable,
    ACTION_NAMES.cpp_link_dynamic_library,
    ACTION_NAMES.cpp_link_nodeps_dynamic_library,
]

def _impl(ctx):
    tools = {
        "gcc": "gcc",
        "cpp": "cpp",
        "ar": "ar",
        "ld": "ld",
        "nm": "nm",
        "objcopy": "objcopy",
        "objdump": "objdump",
        "strip": "strip",
        "gcov": "gcov",
    }
    tool_paths = [tool_path(name = k, path = "/usr/bin/aarch64-linux-gnu-" + v) for k, v in tools.items()]
    tool_paths.append(tool_path(name = "dwp", path = "/bin/false"))
    features = [
        feature(name = "supports_pic", enabled = True),
        feature(name = "supports_dynamic_linker", enabled = True),
        feature(
            name = "default_flags",
            enabled = True,
            flag_sets = [
                flag_set(actions = _COMPILE, flag_groups = [flag_group(flags = [
                    "-no-canonical-prefixes",
                    "-fno-canonical-system-headers",
                ])]),
                flag_set(actions = [ACTION_NAMES.cpp_compile], flag_groups = [flag_group(flags = ["-std=c++17"])]),
                flag_set(actions = _LINK, flag_groups = [flag_group(flags = ["-lm"])]),
            ],
        ),
    ]
    return cc_common.create_cc_toolchain_config_info(
        ctx = ctx,
        toolchain_identifier = "aarch64-linux-gnu",
        host_system_name = "x86_64-unknown-linux-gnu",
        target_system_name = "aarch64-unknown-linux-gnu",
        target_cpu = "aarch64",
        target_libc = "glibc",
        compiler = "gcc",
        abi_version = "unknown",
        abi_libc_version = "unknown",
        tool_paths = tool_paths,
        features = features,
        cxx_builtin_include_directories = [
            "/usr/aarch64-linux-gnu/include",
            "/usr/lib/gcc-cross/aarch64-linux-gnu/" + ctx.attr.gcc_major + "/include",
            "/usr/include",
        ],
    )

aarch64_toolchain_config = rule(
    implementation = _impl,
    attrs = {"gcc_major": attr.string(default = "12")},
    provides = [CcToolchainConfigInfo],
)
