//===- RestApi.h - TF Serving's REST API over a compiled model --*- C++ -*-===//
//
// The request and response bodies of TensorFlow Serving's REST API
// (https://www.tensorflow.org/tfx/serving/api_rest) for a model built by
// tfcc, described by its reflective table: model status, metadata (one
// signature per entry) and predict in the row ("instances") and columnar
// ("inputs") forms. No HTTP here: tfcc-serve.cpp routes requests to it.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_TOOLS_TFCC_SERVE_RESTAPI_H
#define TFCC_TOOLS_TFCC_SERVE_RESTAPI_H

#include "compiler/CompiledModel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tfcc::serve {

/// An HTTP status and a JSON body.
struct Reply {
  int status = 200;
  std::string body;
};

/// {"error": message}, as TF Serving writes errors.
Reply errorReply(int status, const std::string &message);

/// A decoded predict request: which entry, its inputs, the batch, and the
/// form the answer takes.
struct PredictRequest {
  int entry = -1;
  bool rowFormat = false; // "instances" (answer "predictions") or "inputs"
  int64_t batch = 1;      // the batch dimension's value (1 when none)
  std::vector<NpyArray> inputs;
};

class RestModel {
public:
  /// `info`: the model's table; `name`: the name it is served under;
  /// `maxBatch`: the largest batch a request may carry.
  RestModel(const tfcc_model_info &info, std::string name, int64_t maxBatch);

  const std::string &name() const { return name_; }

  /// GET /v1/models/NAME.
  std::string statusJson() const;
  /// GET /v1/models/NAME/metadata: a signature per servable entry, and
  /// "serving_default" for the first.
  std::string metadataJson() const;

  /// Parses and checks the body of POST /v1/models/NAME:predict against the
  /// entry's signature. Returns false with a 4xx reply saying what is wrong.
  bool decodePredict(const std::string &body, PredictRequest &request,
                     Reply &error) const;
  /// The answer to `request` from the entry's outputs.
  Reply encodePredict(const PredictRequest &request,
                      const std::vector<NpyArray> &outputs) const;

private:
  /// The entry a signature name selects ("" and "serving_default": the
  /// first servable one); -1 when none.
  int entryForSignature(const std::string &signature) const;
  bool servable(int entry) const { return servable_[entry]; }

  const tfcc_model_info &info_;
  std::string name_;
  int64_t maxBatch_;
  /// Per entry: false for the train step and its halves (tfcc
  /// --split-train-step), which update the state.
  std::vector<bool> servable_;
};

} // namespace tfcc::serve

#endif // TFCC_TOOLS_TFCC_SERVE_RESTAPI_H
