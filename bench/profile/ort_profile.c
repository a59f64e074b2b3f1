/* ort_profile.c - ONNX Runtime's per-node times for one model, to set beside
 * tfcc-run --profile's (bench/profile/README.md).
 *
 *   ort_profile LIBONNXRUNTIME.so MODEL.onnx THREADS RUNS PREFIX [BATCH]
 *
 * One session as bench/harness/ort_bench.c makes it (intra_op_num_threads =
 * THREADS, sequential, ORT_ENABLE_ALL) with profiling on, RUNS runs on
 * uniform random float inputs in [0, 1) (8-bit inputs zero; dynamic dims
 * BATCH, default 1),
 * then prints the path of ONNX Runtime's JSON trace (PREFIX_<date>.json).
 * Compiled against onnxruntime_c_api.h; asks the library for API 17. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "onnxruntime_c_api.h"

static const OrtApi* ort;

#define CHECK(expr)                                                         \
  do {                                                                      \
    OrtStatus* status_ = (expr);                                            \
    if (status_) {                                                          \
      fprintf(stderr, "ort_profile: %s: %s\n", #expr,                       \
              ort->GetErrorMessage(status_));                               \
      exit(1);                                                              \
    }                                                                       \
  } while (0)

enum { kMaxValues = 16 };

int main(int argc, char** argv) {
  if (argc != 6 && argc != 7) {
    fprintf(stderr,
            "usage: ort_profile LIBONNXRUNTIME.so MODEL.onnx THREADS RUNS "
            "PREFIX [BATCH]\n");
    return 2;
  }
  const int64_t batch = argc == 7 ? atoll(argv[6]) : 1;
  void* lib = dlopen(argv[1], RTLD_NOW);
  if (!lib) {
    fprintf(stderr, "ort_profile: %s\n", dlerror());
    return 1;
  }
  const OrtApiBase* (*get_base)(void) =
      (const OrtApiBase* (*)(void))dlsym(lib, "OrtGetApiBase");
  if (!get_base || !(ort = get_base()->GetApi(17))) {
    fprintf(stderr, "ort_profile: %s has no ONNX Runtime API 17\n", argv[1]);
    return 1;
  }
  const int threads = atoi(argv[3]), runs = atoi(argv[4]);
  OrtEnv* env;
  CHECK(ort->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "ort_profile", &env));
  OrtSessionOptions* options;
  CHECK(ort->CreateSessionOptions(&options));
  CHECK(ort->SetIntraOpNumThreads(options, threads));
  CHECK(ort->SetInterOpNumThreads(options, 1));
  CHECK(ort->SetSessionExecutionMode(options, ORT_SEQUENTIAL));
  CHECK(ort->SetSessionGraphOptimizationLevel(options, ORT_ENABLE_ALL));
  CHECK(ort->EnableProfiling(options, argv[5]));
  OrtSession* session;
  CHECK(ort->CreateSession(env, argv[2], options, &session));
  OrtAllocator* allocator;
  CHECK(ort->GetAllocatorWithDefaultOptions(&allocator));
  size_t num_in, num_out;
  CHECK(ort->SessionGetInputCount(session, &num_in));
  CHECK(ort->SessionGetOutputCount(session, &num_out));
  if (num_in > kMaxValues || num_out > kMaxValues) {
    fprintf(stderr, "ort_profile: more than %d inputs or outputs\n",
            kMaxValues);
    return 1;
  }
  char* in_names[kMaxValues];
  char* out_names[kMaxValues];
  OrtValue* inputs[kMaxValues];
  OrtMemoryInfo* memory;
  CHECK(ort->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault,
                                 &memory));
  for (size_t i = 0; i < num_in; ++i) {
    CHECK(ort->SessionGetInputName(session, i, allocator, &in_names[i]));
    OrtTypeInfo* type;
    CHECK(ort->SessionGetInputTypeInfo(session, i, &type));
    const OrtTensorTypeAndShapeInfo* info;
    CHECK(ort->CastTypeInfoToTensorInfo(type, &info));
    size_t rank;
    CHECK(ort->GetDimensionsCount(info, &rank));
    int64_t dims[8];
    if (rank > 8) {
      fprintf(stderr, "ort_profile: input of rank %zu\n", rank);
      return 1;
    }
    CHECK(ort->GetDimensions(info, dims, rank));
    ONNXTensorElementDataType element;
    CHECK(ort->GetTensorElementType(info, &element));
    size_t count = 1;
    for (size_t k = 0; k < rank; ++k) {
      if (dims[k] < 0)
        dims[k] = batch;
      count *= (size_t)dims[k];
    }
    const size_t bytes =
        element == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT ? 4 : 1;
    void* data = calloc(count, bytes);
    if (bytes == 4)
      for (size_t k = 0; k < count; ++k)
        ((float*)data)[k] = (float)rand() / ((float)RAND_MAX + 1.0f);
    CHECK(ort->CreateTensorWithDataAsOrtValue(memory, data, count * bytes,
                                              dims, rank, element,
                                              &inputs[i]));
    ort->ReleaseTypeInfo(type);
  }
  for (size_t i = 0; i < num_out; ++i)
    CHECK(ort->SessionGetOutputName(session, i, allocator, &out_names[i]));
  for (int run = 0; run < runs; ++run) {
    OrtValue* outputs[kMaxValues] = {0};
    CHECK(ort->Run(session, NULL, (const char* const*)in_names,
                   (const OrtValue* const*)inputs, num_in,
                   (const char* const*)out_names, num_out, outputs));
    for (size_t i = 0; i < num_out; ++i)
      ort->ReleaseValue(outputs[i]);
  }
  char* trace;
  CHECK(ort->SessionEndProfiling(session, allocator, &trace));
  printf("%s\n", trace);
  return 0;
}
