//===- RestApi.cpp - TF Serving's REST API over a compiled model ----------===//

#include "tools/tfcc-serve/RestApi.h"

#include "dialects/graph/IR/HalfFloat.h"
#include "dialects/graph/IR/TrainStepNames.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

using nlohmann::json;

namespace tfcc::serve {

namespace {

/// Deeper bodies are refused before parsing: no model input has that many
/// dimensions, and the parser's and our walks recurse per level.
constexpr int kMaxJsonDepth = 64;

/// The deepest nesting of arrays and objects in `text` (strings skipped),
/// without parsing it.
int jsonDepth(const std::string &text) {
  int depth = 0, deepest = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

/// `value` as JSON text. Strings may hold the request's or the model's
/// bytes: invalid UTF-8 becomes U+FFFD (plain dump() would throw).
std::string dumpJson(const json &value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

/// A short rendering of a JSON value for messages.
std::string brief(const json &value) {
  std::string text = dumpJson(value);
  if (text.size() > 40)
    text = text.substr(0, 37) + "...";
  return text;
}

/// "[batch, 28, 28, 1]" of an argument of the table.
std::string argShapeText(const tfcc_model_info &info,
                         const tfcc_arg_info &arg) {
  std::string s = "[";
  for (int d = 0; d < arg.rank; ++d) {
    int64_t dim = arg.dims[d];
    s += d ? ", " : "";
    s += dim >= 0                    ? std::to_string(dim)
         : dim == TFCC_DIM_DYNAMIC   ? std::string("batch")
         : -1 - dim <= info.num_dims ? std::string(info.dim_names[-2 - dim])
                                     : std::string("?");
  }
  return s + "]";
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

/// The shape of a nested JSON list (scalars: rank 0) and its leaves in
/// row-major order. False with `error` when it is ragged or holds objects.
bool flattenTensor(const json &value, std::vector<int64_t> &shape,
                   std::vector<const json *> &leaves, std::string &error) {
  shape.clear();
  for (const json *v = &value; v->is_array(); v = &(*v)[0]) {
    shape.push_back(int64_t(v->size()));
    if (v->empty())
      break;
  }
  // Every list at depth d must have shape[d] elements; leaves at the end.
  struct Walker {
    const std::vector<int64_t> &shape;
    std::vector<const json *> &leaves;
    std::string &error;
    bool walk(const json &v, size_t depth) {
      if (depth == shape.size()) {
        if (v.is_array() || v.is_object() || v.is_null()) {
          error = "a ragged or non-numeric tensor (" + brief(v) +
                  " where a number was expected)";
          return false;
        }
        leaves.push_back(&v);
        return true;
      }
      if (!v.is_array() || int64_t(v.size()) != shape[depth]) {
        error = "a ragged tensor (a list of " +
                (v.is_array() ? std::to_string(v.size()) : brief(v)) +
                " where " + std::to_string(shape[depth]) +
                " elements were expected)";
        return false;
      }
      for (const json &e : v)
        if (!walk(e, depth + 1))
          return false;
      return true;
    }
  };
  return Walker{shape, leaves, error}.walk(value, 0);
}

template <typename T> void store(NpyArray &a, size_t i, T value) {
  std::memcpy(a.data.data() + i * sizeof(T), &value, sizeof(T));
}

/// Stores JSON leaf `v` as element `i` of `a`; false when it has the wrong
/// kind or range for the dtype.
bool storeLeaf(NpyArray &a, size_t i, const json &v) {
  switch (a.dtype) {
  case DType::F32:
  case DType::F64:
  case DType::F16:
  case DType::BF16: {
    if (!v.is_number())
      return false;
    double x = v.get<double>();
    if (a.dtype == DType::F32)
      store(a, i, float(x));
    else if (a.dtype == DType::F64)
      store(a, i, x);
    else
      store(a, i,
            mlir::graph::halfBits(
                mlir::graph::halfSemantics(a.dtype == DType::BF16), x));
    return true;
  }
  case DType::BOOL:
    if (!v.is_boolean())
      return false;
    store(a, i, uint8_t(v.get<bool>()));
    return true;
  case DType::I32:
  case DType::I64:
  case DType::I8:
  case DType::U8: {
    if (!v.is_number_integer())
      return false;
    if (v.is_number_unsigned() &&
        v.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max()))
      return false;
    int64_t x = v.get<int64_t>();
    auto fits = [&](int64_t lo, int64_t hi) { return x >= lo && x <= hi; };
    if (a.dtype == DType::I32 && fits(INT32_MIN, INT32_MAX))
      store(a, i, int32_t(x));
    else if (a.dtype == DType::I64)
      store(a, i, x);
    else if (a.dtype == DType::I8 && fits(-128, 127))
      store(a, i, int8_t(x));
    else if (a.dtype == DType::U8 && fits(0, 255))
      store(a, i, uint8_t(x));
    else
      return false;
    return true;
  }
  }
  return false;
}

/// Appends element `i` of `a` as a JSON number (the shortest text that reads
/// back as the same value; NaN and infinities as TF Serving writes them).
void appendElement(std::string &out, const NpyArray &a, size_t i) {
  char buf[64];
  auto number = [&](auto x) {
    if (std::isnan(x)) {
      out += "NaN";
    } else if (std::isinf(x)) {
      out += x < 0 ? "-Infinity" : "Infinity";
    } else {
      auto r = std::to_chars(buf, buf + sizeof buf, x);
      out.append(buf, r.ptr);
    }
  };
  const uint8_t *p = a.data.data();
  auto load = [&](auto zero) {
    decltype(zero) v;
    std::memcpy(&v, p + i * sizeof v, sizeof v);
    return v;
  };
  switch (a.dtype) {
  case DType::F32:
    return number(load(0.0f));
  case DType::F64:
    return number(load(0.0));
  case DType::F16:
  case DType::BF16:
    // Exact in a float, whose shortest text reads back as the same value.
    return number(float(mlir::graph::halfValue(
        mlir::graph::halfSemantics(a.dtype == DType::BF16),
        load(uint16_t(0)))));
  case DType::BOOL:
    out += p[i] ? "true" : "false";
    return;
  case DType::I32:
    return number(load(int32_t(0)));
  case DType::I64:
    return number(load(int64_t(0)));
  case DType::I8:
    return number(int(int8_t(p[i])));
  case DType::U8:
    return number(int(p[i]));
  }
}

/// Appends the sub-tensor of `a` at dimension `depth` starting at element
/// `offset` as nested JSON lists.
void appendTensor(std::string &out, const NpyArray &a, size_t depth,
                  size_t offset) {
  if (depth == a.shape.size())
    return appendElement(out, a, offset);
  size_t stride = 1;
  for (size_t d = depth + 1; d < a.shape.size(); ++d)
    stride *= size_t(a.shape[d]);
  out += '[';
  for (int64_t k = 0; k < a.shape[depth]; ++k) {
    if (k)
      out += ',';
    appendTensor(out, a, depth + 1, offset + size_t(k) * stride);
  }
  out += ']';
}

void appendString(std::string &out, const std::string &text) {
  out += dumpJson(json(text));
}

} // namespace

Reply errorReply(int status, const std::string &message) {
  return Reply{status, dumpJson(json{{"error", message}})};
}

RestModel::RestModel(const tfcc_model_info &info, std::string name,
                     int64_t maxBatch)
    : info_(info), name_(std::move(name)), maxBatch_(maxBatch),
      servable_(size_t(info.num_entries), true) {
  if (info_.train_entry <= 0)
    return;
  const char *step = info_.entries[info_.train_entry - 1].name;
  for (int e = 0; e < info_.num_entries; ++e) {
    const char *entry = info_.entries[e].name;
    servable_[e] = e != info_.train_entry - 1 &&
                   entry != mlir::graph::computeGradientsName(step) &&
                   entry != mlir::graph::applyGradientsName(step);
  }
}

int RestModel::entryForSignature(const std::string &signature) const {
  for (int i = 0; i < info_.num_entries; ++i)
    if (servable(i) && (signature.empty() || signature == "serving_default" ||
                        signature == info_.entries[i].name))
      return i;
  return -1;
}

std::string RestModel::statusJson() const {
  json status = {
      {"model_version_status",
       json::array(
           {{{"version", "1"},
             {"state", "AVAILABLE"},
             {"status", {{"error_code", "OK"}, {"error_message", ""}}}}})}};
  return dumpJson(status);
}

std::string RestModel::metadataJson() const {
  auto tensorInfo = [&](const tfcc_arg_info &arg) {
    json dims = json::array();
    for (int d = 0; d < arg.rank; ++d) {
      int64_t dim = arg.dims[d];
      std::string dimName;
      if (dim < TFCC_DIM_DYNAMIC && -1 - dim <= info_.num_dims)
        dimName = info_.dim_names[-2 - dim];
      dims.push_back(
          {{"size", std::to_string(dim >= 0 ? dim : -1)}, {"name", dimName}});
    }
    return json{{"dtype", tfDataType(DType(arg.dtype)).name},
                {"tensor_shape", {{"dim", dims}, {"unknown_rank", false}}},
                {"name", arg.name}};
  };
  auto signature = [&](const tfcc_entry_info &e) {
    json inputs = json::object(), outputs = json::object();
    for (int i = 0; i < e.num_inputs; ++i)
      inputs[e.inputs[i].name] = tensorInfo(e.inputs[i]);
    for (int i = 0; i < e.num_outputs; ++i)
      outputs[e.outputs[i].name] = tensorInfo(e.outputs[i]);
    return json{{"inputs", inputs},
                {"outputs", outputs},
                {"method_name", "tensorflow/serving/predict"}};
  };
  json signatures = json::object();
  for (int i = 0; i < info_.num_entries; ++i)
    if (servable(i))
      signatures[info_.entries[i].name] = signature(info_.entries[i]);
  int first = entryForSignature("");
  if (first >= 0)
    signatures["serving_default"] = signature(info_.entries[first]);
  json metadata = {
      {"model_spec",
       {{"name", name_}, {"signature_name", ""}, {"version", "1"}}},
      {"metadata",
       {{"signature_def",
         {{"signature_def", signatures},
          {"@type",
           "type.googleapis.com/tensorflow.serving.SignatureDefMap"}}}}}};
  return dumpJson(metadata);
}

bool RestModel::decodePredict(const std::string &body, PredictRequest &request,
                              Reply &error) const {
  auto fail = [&](const std::string &message) {
    error = errorReply(400, message);
    return false;
  };
  if (jsonDepth(body) > kMaxJsonDepth)
    return fail("the request nests JSON deeper than " +
                std::to_string(kMaxJsonDepth) + " levels");
  json root;
  try {
    root = json::parse(body);
  } catch (const json::exception &e) { // parse_error, out_of_range (1e999)
    std::string what = e.what();
    size_t bracket = what.find("] ");
    return fail("malformed JSON: " + (bracket == std::string::npos
                                          ? what
                                          : what.substr(bracket + 2)));
  }
  if (!root.is_object())
    return fail("the request body must be a JSON object with \"instances\" "
                "or \"inputs\"");
  for (auto it = root.begin(); it != root.end(); ++it)
    if (it.key() != "signature_name" && it.key() != "instances" &&
        it.key() != "inputs")
      return fail("unknown key \"" + it.key() +
                  "\" (a predict request has \"signature_name\" and "
                  "\"instances\" or \"inputs\")");

  std::string signature;
  if (root.contains("signature_name")) {
    if (!root["signature_name"].is_string())
      return fail("\"signature_name\" must be a string");
    signature = root["signature_name"].get<std::string>();
  }
  request.entry = entryForSignature(signature);
  if (request.entry < 0) {
    int index = -1;
    for (int i = 0; i < info_.num_entries; ++i)
      if (signature == info_.entries[i].name)
        index = i;
    if (index >= 0)
      return fail("signature '" + signature +
                  "' is the model's train step or a half of it, which "
                  "updates its state: tfcc-serve serves only entries that do "
                  "not");
    std::string known;
    for (int i = 0; i < info_.num_entries; ++i)
      if (servable(i))
        known +=
            (known.empty() ? "" : ", ") + std::string(info_.entries[i].name);
    return fail("no signature '" + signature + "' in model '" + name_ +
                "' (it has: serving_default, " + known + ")");
  }
  const tfcc_entry_info &e = info_.entries[request.entry];
  std::string where = std::string(" of ") + e.name;

  bool rows = root.contains("instances"), columns = root.contains("inputs");
  if (rows == columns)
    return fail(rows ? "give either \"instances\" (row form) or \"inputs\" "
                       "(columnar form), not both"
                     : "the request needs \"instances\" (row form) or "
                       "\"inputs\" (columnar form)");
  request.rowFormat = rows;

  // Each input's value (columnar) or its value in each instance (rows).
  std::vector<std::vector<const json *>> parts(e.num_inputs);
  auto byName = [&](const json &object, const std::string &what,
                    std::vector<const json *> &found) {
    for (auto it = object.begin(); it != object.end(); ++it) {
      bool known = false;
      for (int i = 0; i < e.num_inputs; ++i)
        known |= it.key() == e.inputs[i].name;
      if (!known)
        return fail(std::string(what) + " has no input named \"" + it.key() +
                    "\"" + where);
    }
    for (int i = 0; i < e.num_inputs; ++i) {
      if (!object.contains(e.inputs[i].name))
        return fail(std::string(what) + " lacks input '" + e.inputs[i].name +
                    "'" + where);
      found[i] = &object[e.inputs[i].name];
    }
    return true;
  };
  if (rows) {
    const json &instances = root["instances"];
    if (!instances.is_array() || instances.empty())
      return fail("\"instances\" must be a non-empty list of rows");
    for (size_t k = 0; k < instances.size(); ++k) {
      const json &instance = instances[k];
      std::vector<const json *> found(e.num_inputs);
      if (instance.is_object()) {
        if (!byName(instance, "instance " + std::to_string(k),
                    found))
          return false;
      } else if (e.num_inputs == 1) {
        found[0] = &instance;
      } else {
        return fail("instance " + std::to_string(k) + " must be an object " +
                    "naming each of the " + std::to_string(e.num_inputs) +
                    " inputs" + where);
      }
      for (int i = 0; i < e.num_inputs; ++i)
        parts[i].push_back(found[i]);
    }
  } else {
    const json &inputs = root["inputs"];
    std::vector<const json *> found(e.num_inputs);
    if (inputs.is_object()) {
      if (!byName(inputs, "\"inputs\"", found))
        return false;
    } else if (e.num_inputs == 1) {
      found[0] = &inputs;
    } else {
      return fail(std::string(e.name) + " takes " +
                  std::to_string(e.num_inputs) +
                  " inputs: give \"inputs\" as an object by input name");
    }
    for (int i = 0; i < e.num_inputs; ++i)
      parts[i].push_back(found[i]);
  }

  // Shapes and elements, checked against the signature.
  request.inputs.assign(e.num_inputs, NpyArray());
  std::vector<int64_t> named(info_.num_dims, 0);
  int64_t batch = -1;
  std::string batchSource;
  for (int i = 0; i < e.num_inputs; ++i) {
    const tfcc_arg_info &arg = e.inputs[i];
    std::string argText = "input '" + std::string(arg.name) + "'" + where;
    std::vector<int64_t> shape;
    std::vector<const json *> leaves;
    for (size_t k = 0; k < parts[i].size(); ++k) {
      std::vector<int64_t> partShape;
      std::string why;
      if (!flattenTensor(*parts[i][k], partShape, leaves, why))
        return fail(
            argText +
            (rows ? " in instance " + std::to_string(k) : std::string()) +
            " is " + why);
      if (k == 0)
        shape = partShape;
      else if (partShape != shape)
        return fail(argText + ": instance " + std::to_string(k) +
                    " has shape " + shapeText(partShape) + ", instance 0 " +
                    shapeText(shape));
    }
    if (rows)
      shape.insert(shape.begin(), int64_t(parts[i].size()));
    std::string expected = " (expected " + argShapeText(info_, arg) + ")";
    if (int(shape.size()) != arg.rank)
      return fail(argText + " has rank " + std::to_string(shape.size()) + " " +
                  shapeText(shape) + expected);
    for (int d = 0; d < arg.rank; ++d) {
      int64_t dim = arg.dims[d], value = shape[d];
      if (dim >= 0) {
        if (value != dim)
          return fail(argText + " has " + std::to_string(value) +
                      " in dimension " + std::to_string(d) + ", shape " +
                      shapeText(shape) + expected);
        continue;
      }
      if (value < 1)
        return fail(argText + " is empty in dimension " + std::to_string(d) +
                    expected);
      if (dim == TFCC_DIM_DYNAMIC) {
        if (batch >= 0 && value != batch)
          return fail(argText + " has batch " + std::to_string(value) + ", " +
                      batchSource + " " + std::to_string(batch));
        batch = value;
        batchSource = "input '" + std::string(arg.name) + "'";
        continue;
      }
      size_t k = size_t(-1 - dim);
      if (k > named.size())
        return fail(argText + " has an unknown dimension (a malformed model)");
      std::string dimName = info_.dim_names[k - 1];
      if (value > info_.dim_bounds[k - 1])
        return fail(argText + " has " + std::to_string(value) +
                    " for dimension '" + dimName + "', above its bound " +
                    std::to_string(info_.dim_bounds[k - 1]));
      if (named[k - 1] != 0 && named[k - 1] != value)
        return fail(argText + " has " + std::to_string(value) +
                    " for dimension '" + dimName + "', another input " +
                    std::to_string(named[k - 1]));
      named[k - 1] = value;
    }
    NpyArray &a = request.inputs[i];
    a.dtype = DType(arg.dtype);
    a.shape = shape;
    a.data.assign(leaves.size() * byteSize(a.dtype), 0);
    for (size_t k = 0; k < leaves.size(); ++k)
      if (!storeLeaf(a, k, *leaves[k]))
        return fail(
            argText + " is " + dtypeName(a.dtype) +
            (isFloatDType(a.dtype)         ? ": expected numbers"
             : a.dtype == DType::BOOL ? ": expected true or false"
                                      : ": expected integers in its range") +
            ", element " + std::to_string(k) + " is " + brief(*leaves[k]));
  }
  request.batch = batch < 0 ? 1 : batch;
  if (request.batch > maxBatch_)
    return fail("batch " + std::to_string(request.batch) +
                " exceeds this server's limit of " + std::to_string(maxBatch_) +
                " (tfcc-serve --max-batch)");
  return true;
}

Reply RestModel::encodePredict(const PredictRequest &request,
                               const std::vector<NpyArray> &outputs) const {
  const tfcc_entry_info &e = info_.entries[request.entry];
  std::string out;
  if (!request.rowFormat) {
    out = "{\"outputs\":";
    if (outputs.size() == 1) {
      appendTensor(out, outputs[0], 0, 0);
    } else {
      out += '{';
      for (size_t i = 0; i < outputs.size(); ++i) {
        out += i ? "," : "";
        appendString(out, e.outputs[i].name);
        out += ':';
        appendTensor(out, outputs[i], 0, 0);
      }
      out += '}';
    }
    return Reply{200, out + "}"};
  }
  // Rows: the answer's instance k is row k of every output.
  int64_t n = request.inputs.empty() ? 0 : request.inputs[0].shape[0];
  for (size_t i = 0; i < outputs.size(); ++i)
    if (outputs[i].shape.empty() || outputs[i].shape[0] != n)
      return errorReply(400, "output '" + std::string(e.outputs[i].name) +
                                 "' of " + e.name +
                                 " has no row per "
                                 "instance: ask in the columnar form "
                                 "(\"inputs\")");
  out = "{\"predictions\":[";
  for (int64_t k = 0; k < n; ++k) {
    out += k ? "," : "";
    if (outputs.size() != 1)
      out += '{';
    for (size_t i = 0; i < outputs.size(); ++i) {
      const NpyArray &a = outputs[i];
      size_t rowElements =
          a.shape[0] ? a.data.size() / byteSize(a.dtype) / size_t(a.shape[0])
                     : 0;
      if (outputs.size() != 1) {
        out += i ? "," : "";
        appendString(out, e.outputs[i].name);
        out += ':';
      }
      appendTensor(out, a, 1, size_t(k) * rowElements);
    }
    if (outputs.size() != 1)
      out += '}';
  }
  return Reply{200, out + "]}"};
}

} // namespace tfcc::serve
