//===- rest_predict.cpp - libFuzzer harness: a predict body -> tfcc-serve -===//
//
// tools/tfcc-serve/RestApi.cpp's decodePredict (the body of POST
// /v1/models/NAME:predict, untrusted network input) against a model table
// with every kind of argument: a batch, a named dimension with a bound, f32,
// i32, bf16 and bool inputs, and an output without a row per instance. An
// accepted request must fit the signature it names (the server hands it to
// the model as is); its answer is then encoded from outputs of the declared
// shapes, and a refusal must be a 4xx with a message.
//
//===----------------------------------------------------------------------===//

#include "tools/tfcc-serve/RestApi.h"

#include <cstdio>
#include <cstdlib>

using namespace tfcc;

namespace {
const int64_t kImageDims[] = {TFCC_DIM_DYNAMIC, TFCC_DIM_NAMED(1), 3};
const int64_t kBatchDims[] = {TFCC_DIM_DYNAMIC};
const int64_t kRowDims[] = {TFCC_DIM_DYNAMIC, 2};
const tfcc_arg_info kInputs[] = {{"image", TFCC_DTYPE_F32, 3, kImageDims},
                                 {"label", TFCC_DTYPE_I32, 1, kBatchDims},
                                 {"scale", TFCC_DTYPE_BF16, 0, nullptr},
                                 {"mask", TFCC_DTYPE_BOOL, 1, kBatchDims}};
const tfcc_arg_info kOutputs[] = {{"rows", TFCC_DTYPE_F32, 2, kRowDims},
                                  {"total", TFCC_DTYPE_F16, 0, nullptr}};
const tfcc_arg_info kOneInput[] = {{"x", TFCC_DTYPE_F32, 2, kRowDims}};
const tfcc_entry_info kEntries[] = {
    {"predict", 4, 2, kInputs, kOutputs, 1, 1, 0, 0, nullptr, nullptr},
    {"single", 1, 1, kOneInput, kOutputs, 1, 0, 0, 0, nullptr, nullptr},
    {"train_step", 1, 1, kOneInput, kOutputs, 1, 0, 0, 0, nullptr, nullptr}};
const char *const kDimNames[] = {"seq"};
const int64_t kDimBounds[] = {5};
const int32_t kDimFlags[] = {0};
const tfcc_model_info kModel = {
    TFCC_ABI_VERSION,  3,       "fuzz",  kEntries, 0, 0,         0,
    /*train_entry=*/3, nullptr, nullptr, 1,        0, kDimNames, kDimBounds,
    kDimFlags};

[[noreturn]] void fail(const char *what) {
  std::fprintf(stderr, "rest_predict: %s\n", what);
  std::abort();
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  serve::RestModel rest(kModel, "fuzz", /*maxBatch=*/4);
  serve::PredictRequest request;
  serve::Reply error;
  std::string body(reinterpret_cast<const char *>(data), size);
  if (!rest.decodePredict(body, request, error)) {
    if (error.status < 400 || error.status > 499 ||
        error.body.find("\"error\"") == std::string::npos)
      fail("a refusal without a 4xx and a message");
    return 0;
  }
  if (request.entry < 0 || request.entry >= 2)
    fail("an accepted request for an entry that is not served");
  const tfcc_entry_info &entry = kEntries[request.entry];
  if (request.batch < 1 || request.batch > 4 ||
      request.inputs.size() != size_t(entry.num_inputs))
    fail("an accepted request with a bad batch or input count");
  int64_t seq = 0;
  for (int i = 0; i < entry.num_inputs; ++i) {
    const tfcc_arg_info &arg = entry.inputs[i];
    const NpyArray &a = request.inputs[i];
    if (int(a.dtype) != arg.dtype || int(a.shape.size()) != arg.rank ||
        a.data.size() != size_t(a.numElements()) * byteSize(a.dtype))
      fail("an accepted input of the wrong dtype, rank or size");
    for (int d = 0; d < arg.rank; ++d) {
      int64_t dim = arg.dims[d], value = a.shape[d];
      bool ok = dim >= 0 ? value == dim
                : dim == TFCC_DIM_DYNAMIC
                    ? value == request.batch
                    : value >= 1 && value <= 5 && (seq == 0 || value == seq);
      if (dim == TFCC_DIM_NAMED(1))
        seq = value;
      if (!ok)
        fail("an accepted input that does not fit the signature");
    }
  }
  std::vector<NpyArray> outputs(2);
  outputs[0].dtype = DType::F32;
  outputs[0].shape = {request.batch, 2};
  outputs[0].data.assign(size_t(request.batch) * 2 * 4, 0);
  outputs[1].dtype = DType::F16;
  outputs[1].data.assign(2, 0);
  outputs.resize(entry.num_outputs);
  serve::Reply reply = rest.encodePredict(request, outputs);
  if (reply.body.empty() || (reply.status != 200 && reply.status != 400))
    fail("an answer without a body");
  return 0;
}
