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

# The CUDA target (docs/cuda.md): the toolkit whose ptxas builds the GPU
# binary (CUDA_HOME, else /usr/local/cuda), and the fake driver the runtime's
# tests load in place of libcuda (test/unit/fake_cuda_driver.c).
cuda_toolkit = os.environ.get("CUDA_HOME") or "/usr/local/cuda"
if os.access(os.path.join(cuda_toolkit, "bin", "ptxas"), os.X_OK):
    config.available_features.add("cuda-toolkit")
    config.substitutions.append(("%cuda_toolkit", cuda_toolkit))
config.substitutions.append(
    ("%fake_cuda", os.path.join(config.tfcc_obj_root, "test", "unit", "libtfcc_fake_cuda.so")))
if os.path.exists("/usr/lib/x86_64-linux-gnu/libcuda.so.1") or os.path.exists("/usr/lib64/libcuda.so.1"):
    config.available_features.add("cuda-driver")
for name in ("CUDA_HOME", "TFCC_CUDA_DRIVER"):
    if name in os.environ:
        config.environment[name] = os.environ[name]
