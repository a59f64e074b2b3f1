# lit configuration for tfcc's FileCheck tests.
import os
import lit.formats

config.name = "tfcc"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "unit", "e2e"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tfcc_obj_root, "test")

config.environment["PATH"] = os.pathsep.join(
    [config.tfcc_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ["PATH"])])
config.substitutions.append(("%spec", config.shared_spec_dir))
config.substitutions.append(("%tfcc_src", config.tfcc_src_root))
config.substitutions.append(("%tfcc_tools_dir", config.tfcc_tools_dir))
# Debian's Python, which has numpy (test/tflite/tflite_models.py).
import sys
config.substitutions.append(
    ("%python", "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable))

# The host's architecture and ISA, for the tests of code pinned to a CPU
# (tfcc --cpu): never assume them.
import platform
if platform.machine() in ("x86_64", "AMD64"):
    config.available_features.add("x86_64")
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            flags = set()
            for line in cpuinfo:
                if line.startswith("flags"):
                    flags.update(line.split(":", 1)[1].split())
        if {"avx2", "fma"} <= flags:
            config.available_features.add("cpu-avx2")
    except OSError:
        pass

# The runtimes of the cross targets, built where Debian's cross sysroots are
# installed (CMakeLists.txt, docs/embedded.md).
for triple, feature in (("aarch64-linux-gnu", "runtime-aarch64"),
                        ("arm-linux-gnueabihf", "runtime-armhf"),
                        ("thumbv7em-none-eabihf", "runtime-cortex-m")):
    if os.path.exists(os.path.join(config.tfcc_obj_root, "lib", triple, "libtfcc_runtime.a")):
        config.available_features.add(feature)
