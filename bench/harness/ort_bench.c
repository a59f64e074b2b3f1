/* ort_bench.c - benchmark harness for ONNX Runtime through its C API.
 *
 *   ort_bench LIBONNXRUNTIME.so MODEL.onnx THREADS BATCH
 *
 * dlopens the library (npm's onnxruntime-node ships libonnxruntime.so.1), creates one session
 * with intra_op_num_threads = THREADS, inter_op_num_threads = 1, sequential execution and
 * ORT_ENABLE_ALL, and speaks the protocol of common.h. Dynamic input dims take BATCH. Inputs
 * and outputs are caller-owned buffers wrapped once as OrtValues (output shapes come from one
 * run at load time), so a timed Run allocates no tensors.
 *
 * Compiled against onnxruntime_c_api.h (API 29, from npm's com.github.asus4.onnxruntime);
 * asks the library for API 29, then lower versions down to 17.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>

#include "common.h"
#include "onnxruntime_c_api.h"

static const OrtApi* ort;

typedef struct {
  OrtSession* session;
  size_t num_in, num_out;
  char** in_names;
  char** out_names;
  void** in;
  void** out;
  size_t* in_bytes;
  size_t* out_bytes;
  OrtValue** in_vals;
  OrtValue** out_vals;
} model_t;

#define CHECK_ORT(expr, what)                                        \
  do {                                                               \
    OrtStatus* st_ = (expr);                                         \
    if (st_) {                                                       \
      bench_reply("error %s: %s", what, ort->GetErrorMessage(st_));  \
      ort->ReleaseStatus(st_);                                       \
      return 1;                                                      \
    }                                                                \
  } while (0)

static size_t elem_bytes(ONNXTensorElementDataType t) {
  switch (t) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT: case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32: return 4;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE: case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64: return 8;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16: case ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16: case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16: return 2;
    default: return 1;
  }
}

static int run(void* self, char* err, size_t len) {
  model_t* m = self;
  OrtStatus* st = ort->Run(m->session, NULL, (const char* const*)m->in_names,
                           (const OrtValue* const*)m->in_vals, m->num_in,
                           (const char* const*)m->out_names, m->num_out, m->out_vals);
  if (st) {
    snprintf(err, len, "Run: %s", ort->GetErrorMessage(st));
    ort->ReleaseStatus(st);
    return 1;
  }
  return 0;
}

static int check(void* self, const char* in, const char* out, size_t* written, char* err,
                 size_t len) {
  model_t* m = self;
  if (bench_read_inputs(in, (int)m->num_in, m->in, m->in_bytes)) {
    snprintf(err, len, "cannot read inputs of the expected size from %s", in);
    return 1;
  }
  if (run(self, err, len)) return 1;
  if (bench_write_outputs(out, (int)m->num_out, (const void* const*)m->out, m->out_bytes)) {
    snprintf(err, len, "cannot write %s", out);
    return 1;
  }
  *written = 0;
  for (size_t i = 0; i < m->num_out; ++i) *written += m->out_bytes[i];
  return 0;
}

/* Wraps `data` (bytes of type t, shape dims[n]) as an OrtValue. */
static OrtStatus* wrap(const OrtMemoryInfo* mem, void* data, size_t bytes, const int64_t* dims,
                       size_t n, ONNXTensorElementDataType t, OrtValue** out) {
  return ort->CreateTensorWithDataAsOrtValue(mem, data, bytes, dims, n, t, out);
}

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: ort_bench LIBONNXRUNTIME.so MODEL.onnx THREADS BATCH\n");
    return 2;
  }
  const char* lib_path = argv[1];
  const char* model_path = argv[2];
  int threads = atoi(argv[3]);
  int64_t batch = atoll(argv[4]);

  void* lib = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) { bench_reply("error dlopen: %s", dlerror()); return 1; }
  typedef const OrtApiBase* (*base_fn)(void);
  base_fn get_base = (base_fn)dlsym(lib, "OrtGetApiBase");
  if (!get_base) { bench_reply("error no OrtGetApiBase in %s", lib_path); return 1; }
  const OrtApiBase* base = get_base();
  int api_version = ORT_API_VERSION;
  for (; api_version >= 17 && !ort; --api_version) ort = base->GetApi((uint32_t)api_version);
  if (!ort) { bench_reply("error ORT %s offers no C API 17..%d", base->GetVersionString(), ORT_API_VERSION); return 1; }

  OrtEnv* env;
  CHECK_ORT(ort->CreateEnv(ORT_LOGGING_LEVEL_ERROR, "bench", &env), "CreateEnv");
  OrtSessionOptions* so;
  CHECK_ORT(ort->CreateSessionOptions(&so), "CreateSessionOptions");
  CHECK_ORT(ort->SetIntraOpNumThreads(so, threads), "SetIntraOpNumThreads");
  CHECK_ORT(ort->SetInterOpNumThreads(so, 1), "SetInterOpNumThreads");
  CHECK_ORT(ort->SetSessionExecutionMode(so, ORT_SEQUENTIAL), "SetSessionExecutionMode");
  CHECK_ORT(ort->SetSessionGraphOptimizationLevel(so, ORT_ENABLE_ALL), "SetGraphOptimizationLevel");
  model_t m = {0};
  CHECK_ORT(ort->CreateSession(env, model_path, so, &m.session), "CreateSession");

  OrtAllocator* alloc;
  CHECK_ORT(ort->GetAllocatorWithDefaultOptions(&alloc), "GetAllocator");
  OrtMemoryInfo* mem;
  CHECK_ORT(ort->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &mem), "CreateCpuMemoryInfo");

  CHECK_ORT(ort->SessionGetInputCount(m.session, &m.num_in), "SessionGetInputCount");
  CHECK_ORT(ort->SessionGetOutputCount(m.session, &m.num_out), "SessionGetOutputCount");
  m.in_names = calloc(m.num_in + 1, sizeof(char*));
  m.out_names = calloc(m.num_out + 1, sizeof(char*));
  m.in = calloc(m.num_in + 1, sizeof(void*));
  m.out = calloc(m.num_out + 1, sizeof(void*));
  m.in_bytes = calloc(m.num_in + 1, sizeof(size_t));
  m.out_bytes = calloc(m.num_out + 1, sizeof(size_t));
  m.in_vals = calloc(m.num_in + 1, sizeof(OrtValue*));
  m.out_vals = calloc(m.num_out + 1, sizeof(OrtValue*));

  for (size_t i = 0; i < m.num_in; ++i) {
    CHECK_ORT(ort->SessionGetInputName(m.session, i, alloc, &m.in_names[i]), "SessionGetInputName");
    OrtTypeInfo* ti;
    CHECK_ORT(ort->SessionGetInputTypeInfo(m.session, i, &ti), "SessionGetInputTypeInfo");
    const OrtTensorTypeAndShapeInfo* tsi;
    CHECK_ORT(ort->CastTypeInfoToTensorInfo(ti, &tsi), "CastTypeInfoToTensorInfo");
    ONNXTensorElementDataType t;
    CHECK_ORT(ort->GetTensorElementType(tsi, &t), "GetTensorElementType");
    size_t n;
    CHECK_ORT(ort->GetDimensionsCount(tsi, &n), "GetDimensionsCount");
    int64_t dims[16];
    if (n > 16) { bench_reply("error input rank %zu", n); return 1; }
    CHECK_ORT(ort->GetDimensions(tsi, dims, n), "GetDimensions");
    size_t bytes = elem_bytes(t);
    for (size_t d = 0; d < n; ++d) {
      if (dims[d] < 0) dims[d] = batch;
      bytes *= (size_t)dims[d];
    }
    m.in_bytes[i] = bytes;
    m.in[i] = bench_alloc(bytes);
    CHECK_ORT(wrap(mem, m.in[i], bytes, dims, n, t, &m.in_vals[i]), "CreateTensor(input)");
    ort->ReleaseTypeInfo(ti);
  }
  for (size_t i = 0; i < m.num_out; ++i)
    CHECK_ORT(ort->SessionGetOutputName(m.session, i, alloc, &m.out_names[i]), "SessionGetOutputName");

  /* One run with ORT-allocated outputs gives their shapes; then wrap our own buffers. */
  CHECK_ORT(ort->Run(m.session, NULL, (const char* const*)m.in_names,
                     (const OrtValue* const*)m.in_vals, m.num_in,
                     (const char* const*)m.out_names, m.num_out, m.out_vals), "Run(first)");
  for (size_t i = 0; i < m.num_out; ++i) {
    OrtTensorTypeAndShapeInfo* tsi;
    CHECK_ORT(ort->GetTensorTypeAndShape(m.out_vals[i], &tsi), "GetTensorTypeAndShape");
    ONNXTensorElementDataType t;
    CHECK_ORT(ort->GetTensorElementType(tsi, &t), "GetTensorElementType");
    size_t n;
    CHECK_ORT(ort->GetDimensionsCount(tsi, &n), "GetDimensionsCount");
    int64_t dims[16];
    if (n > 16) { bench_reply("error output rank %zu", n); return 1; }
    CHECK_ORT(ort->GetDimensions(tsi, dims, n), "GetDimensions");
    size_t bytes = elem_bytes(t);
    for (size_t d = 0; d < n; ++d) bytes *= (size_t)dims[d];
    ort->ReleaseTensorTypeAndShapeInfo(tsi);
    ort->ReleaseValue(m.out_vals[i]);
    m.out_bytes[i] = bytes;
    m.out[i] = bench_alloc(bytes);
    CHECK_ORT(wrap(mem, m.out[i], bytes, dims, n, t, &m.out_vals[i]), "CreateTensor(output)");
  }

  bench_reply("ready threads=%d ort=%s api=%d", threads, base->GetVersionString(), api_version + 1);
  int rc = bench_serve(&m, run, check);
  for (size_t i = 0; i < m.num_in; ++i) ort->ReleaseValue(m.in_vals[i]);
  for (size_t i = 0; i < m.num_out; ++i) ort->ReleaseValue(m.out_vals[i]);
  ort->ReleaseSession(m.session);
  ort->ReleaseSessionOptions(so);
  ort->ReleaseMemoryInfo(mem);
  ort->ReleaseEnv(env);
  return rc;
}
