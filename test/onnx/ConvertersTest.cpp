//===- ConvertersTest.cpp - ONNX op converters and import-time folding ----===//
//
// Builds small ONNX models in memory, imports them and checks the graph IR:
// shape subgraphs fold away, attributes map onto the graph ops' conventions,
// and what cannot be expressed is a diagnostic naming the op and attribute.
//
//===----------------------------------------------------------------------===//

#include "compiler/Registration.h"
#include "compiler/onnx/HostFolding.h"
#include "compiler/onnx/OnnxImporter.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

using namespace tfcc::onnx_import;

namespace {

constexpr int kF32 = onnx::TensorProto::FLOAT;
constexpr int kI64 = onnx::TensorProto::INT64;
constexpr int kBool = onnx::TensorProto::BOOL;

/// A one-graph ONNX model built node by node.
class Model {
public:
  explicit Model(int64_t opset) {
    model.set_ir_version(8);
    auto *import = model.add_opset_import();
    import->set_domain("");
    import->set_version(opset);
    model.mutable_graph()->set_name("test");
  }

  /// dims: -1 is a symbolic dimension "N".
  void input(const std::string &name, int elemType, std::vector<int64_t> dims) {
    valueInfo(model.mutable_graph()->add_input(), name, elemType, dims);
  }
  void output(const std::string &name, int elemType) {
    auto *info = model.mutable_graph()->add_output();
    info->set_name(name);
    info->mutable_type()->mutable_tensor_type()->set_elem_type(elemType);
  }
  void initializer(const std::string &name, std::vector<int64_t> values,
                   std::vector<int64_t> dims) {
    onnx::TensorProto *t = model.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(kI64);
    for (int64_t d : dims)
      t->add_dims(d);
    for (int64_t v : values)
      t->add_int64_data(v);
  }
  void initializer(const std::string &name, std::vector<int64_t> values) {
    initializer(name, values, {static_cast<int64_t>(values.size())});
  }
  void floatInitializer(const std::string &name, std::vector<float> values,
                        std::vector<int64_t> dims) {
    onnx::TensorProto *t = model.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(kF32);
    for (int64_t d : dims)
      t->add_dims(d);
    for (float v : values)
      t->add_float_data(v);
  }
  onnx::NodeProto &node(const std::string &op,
                        std::vector<std::string> inputs,
                        std::vector<std::string> outputs) {
    onnx::NodeProto *n = model.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(op + "_" + std::to_string(model.graph().node_size()));
    for (auto &i : inputs)
      n->add_input(i);
    for (auto &o : outputs)
      n->add_output(o);
    return *n;
  }

  /// Writes the model and imports it; returns the printed module (empty on
  /// failure) and collects the diagnostics.
  std::string import(std::string &diagnostics,
                     const std::map<std::string, std::vector<int64_t>>
                         &inputShapes = {}) {
    llvm::SmallString<128> path;
    llvm::sys::fs::createTemporaryFile("converters", "onnx", path);
    {
      std::ofstream file(path.c_str(), std::ios::binary);
      model.SerializeToOstream(&file);
    }
    mlir::DialectRegistry registry;
    tfcc::registerCompilerDialects(registry);
    mlir::MLIRContext context(registry);
    mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
      diagnostics += d.str() + "\n";
      return mlir::success();
    });
    mlir::OwningOpRef<mlir::ModuleOp> module =
        tfcc::importOnnxModel(path.str().str(), context, "test", inputShapes);
    llvm::sys::fs::remove(path);
    if (!module)
      return "";
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    return os.str();
  }

private:
  static void valueInfo(onnx::ValueInfoProto *info, const std::string &name,
                        int elemType, const std::vector<int64_t> &dims) {
    info->set_name(name);
    auto *tensor = info->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(elemType);
    auto *shape = tensor->mutable_shape();
    for (int64_t d : dims) {
      auto *dim = shape->add_dim();
      if (d < 0)
        dim->set_dim_param("N");
      else
        dim->set_dim_value(d);
    }
  }

  onnx::ModelProto model;
};

void setInts(onnx::NodeProto &node, const std::string &name,
             std::vector<int64_t> values) {
  auto *a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : values)
    a->add_ints(v);
}
void setInt(onnx::NodeProto &node, const std::string &name, int64_t value) {
  auto *a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(value);
}
void setFloat(onnx::NodeProto &node, const std::string &name, float value) {
  auto *a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(value);
}
void setString(onnx::NodeProto &node, const std::string &name,
               const std::string &value) {
  auto *a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(value);
}

int count(const std::string &text, const std::string &what) {
  int n = 0;
  for (size_t pos = text.find(what); pos != std::string::npos;
       pos = text.find(what, pos + what.size()))
    ++n;
  return n;
}

//===----------------------------------------------------------------------===//
// Folding of shape computations
//===----------------------------------------------------------------------===//

TEST(OnnxConverters, ShapeGatherConcatReshapeFoldsToOneReshape) {
  // y = Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1]))
  Model m(13);
  m.input("x", kF32, {2, 3, 4});
  m.initializer("zero", {0}, {});
  m.initializer("axes0", {0});
  m.initializer("minus1", {-1});
  m.node("Shape", {"x"}, {"s"});
  m.node("Gather", {"s", "zero"}, {"d0"});
  m.node("Unsqueeze", {"d0", "axes0"}, {"d0v"});
  setInt(m.node("Concat", {"d0v", "minus1"}, {"shape"}), "axis", 0);
  m.node("Reshape", {"x", "shape"}, {"y"});
  m.output("y", kF32);
  std::string diagnostics;
  std::string ir = m.import(diagnostics);
  ASSERT_FALSE(ir.empty()) << diagnostics;
  EXPECT_EQ(count(ir, "graph.reshape"), 1) << ir;
  EXPECT_EQ(count(ir, "-> tensor<2x12xf32>"), 1) << ir;
  for (const char *op : {"graph.gather", "graph.concat", "graph.constant",
                         "graph.read", "graph.variable"})
    EXPECT_EQ(count(ir, op), 0) << op << " left in\n" << ir;
}

TEST(OnnxConverters, ShapeArithmeticFoldsWithIntegerDivision) {
  // Reshape(x, [Shape(x)[1] * Shape(x)[2] / 4, -1]) with integer division.
  Model m(13);
  m.input("x", kF32, {2, 3, 4});
  m.initializer("i12", {1, 2});
  m.initializer("four", {4}, {});
  m.initializer("minus1", {-1});
  m.initializer("axes0", {0});
  m.node("Shape", {"x"}, {"s"});
  m.node("Gather", {"s", "i12"}, {"d12"});
  setInt(m.node("ReduceProd", {"d12"}, {"p"}), "keepdims", 0);
  m.node("Div", {"p", "four"}, {"q"}); // 12 / 4 = 3
  m.node("Unsqueeze", {"q", "axes0"}, {"qv"});
  setInt(m.node("Concat", {"qv", "minus1"}, {"shape"}), "axis", 0);
  m.node("Reshape", {"x", "shape"}, {"y"});
  m.output("y", kF32);
  std::string diagnostics;
  std::string ir = m.import(diagnostics);
  ASSERT_FALSE(ir.empty()) << diagnostics;
  EXPECT_EQ(count(ir, "-> tensor<3x8xf32>"), 1) << ir;
  EXPECT_EQ(count(ir, "graph.div"), 0) << ir;
}

TEST(OnnxConverters, ReshapeKeepsDynamicDims) {
  Model m(13);
  m.input("x", kF32, {-1, 3, 4});
  m.initializer("shape", {0, -1});
  m.node("Reshape", {"x", "shape"}, {"y"});
  m.output("y", kF32);
  std::string diagnostics;
  std::string ir = m.import(diagnostics);
  ASSERT_FALSE(ir.empty()) << diagnostics;
  EXPECT_EQ(count(ir, "(tensor<?x3x4xf32>) -> tensor<?x12xf32>"), 1) << ir;
}

//===--- partially known shapes: dynamic dims as unknown entries ----------===//

/// The graph ops a folded shape subgraph must not leave behind.
void expectNoShapeOps(const std::string &ir) {
  for (const char *op : {"graph.gather", "graph.slice", "graph.concat",
                         "graph.constant", "graph.cast", "graph.mul"})
    EXPECT_EQ(count(ir, op), 0) << op << " left in\n" << ir;
}

TEST(OnnxConverters, ShapeSliceConcatReshapeKeepsDynamicBatch) {
  // Paddle: y = Reshape(x, Concat(Slice(Shape(x), [0], [1]), [24]))
  Model m(13);
  m.input("x", kF32, {-1, 4, 2, 3});
  m.initializer("zero", {0});
  m.initializer("one", {1});
  m.initializer("c24", {24});
  m.node("Shape", {"x"}, {"s"});
  m.node("Slice", {"s", "zero", "one"}, {"batch"});
  setInt(m.node("Concat", {"batch", "c24"}, {"shape"}), "axis", 0);
  m.node("Reshape", {"x", "shape"}, {"y"});
  m.output("y", kF32);
  std::string diagnostics;
  std::string ir = m.import(diagnostics);
  ASSERT_FALSE(ir.empty()) << diagnostics;
  EXPECT_EQ(count(ir, "(tensor<?x4x2x3xf32>) -> tensor<?x24xf32>"), 1) << ir;
  expectNoShapeOps(ir);
}

TEST(OnnxConverters, TorchViewBatchMinusOneFolds) {
  // PyTorch x.view(x.size(0), -1), with a Cast and arithmetic on the batch:
  // Reshape(x, Concat(Unsqueeze(Cast(Gather(Shape(x), 0) * 1)), [-1])).
  Model m(13);
  m.input("x", kF32, {-1, 4, 2, 3});
  m.initializer("zero", {0}, {});
  m.initializer("one", {1}, {});
  m.initializer("axes0", {0});
  m.initializer("minus1", {-1});
  m.node("Shape", {"x"}, {"s"});
  m.node("Gather", {"s", "zero"}, {"n"});
  m.node("Mul", {"n", "one"}, {"n1"});
  setInt(m.node("Cast", {"n1"}, {"n32"}), "to", onnx::TensorProto::INT32);
  setInt(m.node("Cast", {"n32"}, {"n64"}), "to", kI64);
  m.node("Unsqueeze", {"n64", "axes0"}, {"nv"});
  setInt(m.node("Concat", {"nv", "minus1"}, {"shape"}), "axis", 0);
  m.node("Reshape", {"x", "shape"}, {"y"});
  m.output("y", kF32);
  std::string diagnostics;
  std::string ir = m.import(diagnostics);
  ASSERT_FALSE(ir.empty()) << diagnostics;
  EXPECT_EQ(count(ir, "(tensor<?x4x2x3xf32>) -> tensor<?x24xf32>"), 1) << ir;
  expectNoShapeOps(ir);
}

TEST(OnnxConverters, ReshapeToItsOwnDynamicShapeIsTheIdentity) {
  Model m(13);
  m.input("x", kF32, {-1, 3});
  m.node("Shape", {"x"}, {"s"});
  m.node("Reshape", {"x", "s"}, {"y"});
  m.output("y", kF32);
  std::string diagnostics;
  std::string ir = m.import(diagnostics);
  ASSERT_FALSE(ir.empty()) << diagnostics;
  EXPECT_EQ(count(ir, "graph.reshape"), 0) << ir;
  EXPECT_EQ(count(ir, "return %arg0"), 1) << ir;
}

TEST(OnnxConverters, DynamicDimensionNeededAtRunTimeIsUnsupported) {
  // x * float(x.size(0)): the batch as a run-time value.
  Model m(13);
  m.input("x", kF32, {-1, 3});
  m.initializer("zero", {0}, {});
  m.node("Shape", {"x"}, {"s"});
  m.node("Gather", {"s", "zero"}, {"n"});
  setInt(m.node("Cast", {"n"}, {"nf"}), "to", kF32);
  m.node("Mul", {"x", "nf"}, {"y"});
  m.output("y", kF32);
  std::string diagnostics;
  EXPECT_TRUE(m.import(diagnostics).empty());
  EXPECT_NE(diagnostics.find("unsupported value 'n' derived from dynamic "
                             "dimension 0 of 'x' [?, 3] is needed at run time"),
            std::string::npos)
      << diagnostics;
  EXPECT_NE(diagnostics.find("in Cast node"), std::string::npos)
      << diagnostics;
}

TEST(OnnxConverters, ComparisonOfDynamicDimensionIsUnsupported) {
  Model m(13);
  m.input("x", kF32, {-1, 3});
  m.initializer("zero", {0}, {});
  m.node("Shape", {"x"}, {"s"});
  m.node("Gather", {"s", "zero"}, {"n"});
  m.node("Equal", {"n", "zero"}, {"e"});
  m.output("e", kBool);
  std::string diagnostics;
  EXPECT_TRUE(m.import(diagnostics).empty());
  EXPECT_NE(diagnostics.find("is needed at run time"), std::string::npos)
      << diagnostics;
  EXPECT_NE(diagnostics.find("in Equal node"), std::string::npos)
      << diagnostics;
}

TEST(OnnxConverters, UnknownReshapeEntryAtStaticPositionIsUnsupported) {
  // z's dim 0 is static: the batch of x cannot be its size.
  Model m(13);
  m.input("x", kF32, {-1, 3});
  m.input("z", kF32, {4, 6});
  m.initializer("zero", {0});
  m.initializer("one", {1});
  m.initializer("minus1", {-1});
  m.node("Shape", {"x"}, {"s"});
  m.node("Slice", {"s", "zero", "one"}, {"batch"});
  setInt(m.node("Concat", {"batch", "minus1"}, {"shape"}), "axis", 0);
  m.node("Reshape", {"z", "shape"}, {"y"});
  m.output("y", kF32);
  std::string diagnostics;
  EXPECT_TRUE(m.import(diagnostics).empty());
  EXPECT_NE(diagnostics.find("unsupported 'shape' = [?, -1] whose entry 0 is "
                             "derived from dynamic dimension 0 of 'x' [?, 3] "
                             "for the input shape [4, 6]"),
            std::string::npos)
      << diagnostics;
}

TEST(OnnxConverters, ExpandToDynamicShapeIsUnsupported) {
  Model m(13);
  m.input("x", kF32, {-1, 3});
  m.node("Shape", {"x"}, {"s"});
  m.node("Expand", {"x", "s"}, {"y"});
  m.output("y", kF32);
  std::string diagnostics;
  EXPECT_TRUE(m.import(diagnostics).empty());
  EXPECT_NE(diagnostics.find("unsupported 'shape' input [?, 3] derived from "
                             "dynamic dimension 0 of 'x' [?, 3] (not known "
                             "at import time) in Expand node"),
            std::string::npos)
      << diagnostics;
}

TEST(OnnxConverters, ResizeSizesWithDynamicBatchFold) {
  // PyTorch interpolate(size=...): sizes = Concat(Shape(x)[0:2], [4, 6]).
  Model m(13);
  m.input("x", kF32, {-1, 3, 2, 3});
  m.initializer("zero", {0});
  m.initializer("two", {2});
  m.initializer("hw", {4, 6});
  m.node("Shape", {"x"}, {"s"});
  m.node("Slice", {"s", "zero", "two"}, {"nc"});
  setInt(m.node("Concat", {"nc", "hw"}, {"sizes"}), "axis", 0);
  setString(m.node("Resize", {"x", "", "", "sizes"}, {"y"}), "mode", "nearest");
  m.output("y", kF32);
  std::string diagnostics;
  std::string ir = m.import(diagnostics);
  ASSERT_FALSE(ir.empty()) << diagnostics;
  EXPECT_EQ(count(ir, "-> tensor<?x3x4x6xf32>"), 1) << ir;
  expectNoShapeOps(ir);
}

TEST(OnnxConverters, InputShapesPinDynamicDims) {
  Model m(13);
  m.input("x", kF32, {-1, 3, -1, -1});
  setInt(m.node("Flatten", {"x"}, {"y"}), "axis", 1);
  m.output("y", kF32);
  std::string diagnostics;
  std::string ir = m.import(diagnostics, {{"x", {-1, 3, 4, 5}}});
  ASSERT_FALSE(ir.empty()) << diagnostics;
  EXPECT_EQ(count(ir, "(tensor<?x3x4x5xf32>) -> tensor<?x60xf32>"), 1) << ir;

  diagnostics.clear();
  EXPECT_TRUE(m.import(diagnostics, {{"image", {1, 3, 4, 5}}}).empty());
  EXPECT_NE(diagnostics.find("input shape image=1x3x4x5: the model has no "
                             "graph input 'image' (its inputs: 'x')"),
            std::string::npos)
      << diagnostics;
  diagnostics.clear();
  EXPECT_TRUE(m.import(diagnostics, {{"x", {1, 4, 4, 5}}}).empty());
  EXPECT_NE(diagnostics.find("sets dimension 1 to 4 but graph input 'x' has "
                             "the static size 3 there"),
            std::string::npos)
      << diagnostics;
}

//===----------------------------------------------------------------------===//
// Attribute mapping
//===----------------------------------------------------------------------===//

TEST(OnnxConverters, PadReordersPads) {
  Model m(13);
  m.input("x", kF32, {1, 2, 3});
  m.initializer("pads", {0, 1, 2, 0, 3, 4});
  m.node("Pad", {"x", "pads"}, {"y"});
  m.output("y", kF32);
  std::string diagnostics;
  std::string ir = m.import(diagnostics);
  ASSERT_FALSE(ir.empty()) << diagnostics;
  // ONNX [b0, b1, b2, e0, e1, e2] -> graph [l0, h0, l1, h1, l2, h2].
  EXPECT_EQ(count(ir, "pads = [0, 0, 1, 3, 2, 4]"), 1) << ir;
  EXPECT_EQ(count(ir, "-> tensor<1x6x9xf32>"), 1) << ir;
}

TEST(OnnxConverters, PadWrapIsInvalidBeforeOpset19) {
  Model m(13);
  m.input("x", kF32, {1, 2, 3});
  m.initializer("pads", {0, 1, 2, 0, 3, 4});
  setString(m.node("Pad", {"x", "pads"}, {"y"}), "mode", "wrap");
  m.output("y", kF32);
  std::string diagnostics;
  EXPECT_TRUE(m.import(diagnostics).empty());
  EXPECT_NE(diagnostics.find("invalid attribute 'mode' = \"wrap\" (Pad has it "
                             "from opset 19) in Pad node 'Pad_1' (opset 13)"),
            std::string::npos)
      << diagnostics;
}

TEST(OnnxConverters, PadWrapIsSlicesAndConcats) {
  Model m(19);
  m.input("x", kF32, {1, 2, 3});
  m.initializer("pads", {0, 1, 2, 0, 0, 1});
  setString(m.node("Pad", {"x", "pads"}, {"y"}), "mode", "wrap");
  m.output("y", kF32);
  std::string diagnostics;
  std::string ir = m.import(diagnostics);
  ASSERT_FALSE(ir.empty()) << diagnostics;
  EXPECT_EQ(count(ir, "graph.concat"), 2) << ir;
  EXPECT_EQ(count(ir, "-> tensor<1x3x6xf32>"), 1) << ir;
}

TEST(OnnxConverters, PadWrapPastTheSizeIsUnsupported) {
  Model m(19);
  m.input("x", kF32, {1, 2, 3});
  m.initializer("pads", {0, 3, 0, 0, 0, 0});
  setString(m.node("Pad", {"x", "pads"}, {"y"}), "mode", "wrap");
  m.output("y", kF32);
  std::string diagnostics;
  EXPECT_TRUE(m.import(diagnostics).empty());
  EXPECT_NE(diagnostics.find("unsupported wrap 'pads' = [0, 3, 0, 0, 0, 0] for "
                             "dimension 1 of [1, 2, 3] (a static size at "
                             "least the pads)"),
            std::string::npos)
      << diagnostics;
}

TEST(OnnxConverters, PadReflectKeepsTheMode) {
  Model m(13);
  m.input("x", kF32, {1, 4, 5});
  m.initializer("pads", {0, 1, 2, 0, 1, 2});
  setString(m.node("Pad", {"x", "pads"}, {"y"}), "mode", "reflect");
  m.output("y", kF32);
  std::string diagnostics;
  std::string ir = m.import(diagnostics);
  ASSERT_FALSE(ir.empty()) << diagnostics;
  // ONNX [b0, b1, b2, e0, e1, e2] -> graph [l0, h0, l1, h1, l2, h2].
  EXPECT_EQ(count(ir, "mode = \"reflect\", pads = [0, 0, 1, 1, 2, 2]"), 1) << ir;
}

TEST(OnnxConverters, GatherElementsWrapsNegativeConstantIndices) {
  Model m(13);
  m.input("x", kF32, {2, 3});
  m.initializer("i", {-1, 0, 2, -3}, {2, 2});
  setInt(m.node("GatherElements", {"x", "i"}, {"y"}), "axis", 1);
  m.output("y", kF32);
  std::string diagnostics;
  std::string ir = m.import(diagnostics);
  ASSERT_FALSE(ir.empty()) << diagnostics;
  EXPECT_EQ(count(ir, "dense<[[2, 0], [2, 0]]> : tensor<2x2xi64>"), 1) << ir;
  EXPECT_EQ(count(ir, "graph.gather_elements"), 1) << ir;
}

TEST(OnnxConverters, GatherElementsRefusesOutOfRangeAndRankMismatch) {
  {
    Model m(13);
    m.input("x", kF32, {2, 3});
    m.initializer("i", {0, 3}, {2, 1});
    setInt(m.node("GatherElements", {"x", "i"}, {"y"}), "axis", 1);
    m.output("y", kF32);
    std::string diagnostics;
    EXPECT_TRUE(m.import(diagnostics).empty());
    EXPECT_NE(diagnostics.find("unsupported index 3 out of range for "
                               "dimension 1 of size 3 in GatherElements"),
              std::string::npos)
        << diagnostics;
  }
  Model m(13);
  m.input("x", kF32, {2, 3});
  m.input("i", kI64, {2});
  m.node("GatherElements", {"x", "i"}, {"y"});
  m.output("y", kF32);
  std::string diagnostics;
  EXPECT_TRUE(m.import(diagnostics).empty());
  EXPECT_NE(diagnostics.find("unsupported indices of rank 1 for data of rank 2 "
                             "in GatherElements"),
            std::string::npos)
      << diagnostics;
}

TEST(OnnxConverters, IsInfAndIsNaNAreComparisons) {
  Model m(20);
  m.input("x", kF32, {4});
  m.node("IsInf", {"x"}, {"both"});
  setInt(m.node("IsInf", {"x"}, {"negative"}), "detect_positive", 0);
  auto &neither = m.node("IsInf", {"x"}, {"neither"});
  setInt(neither, "detect_positive", 0);
  setInt(neither, "detect_negative", 0);
  m.node("IsNaN", {"x"}, {"nan"});
  for (const char *name : {"both", "negative", "neither", "nan"})
    m.output(name, kBool);
  std::string diagnostics;
  std::string ir = m.import(diagnostics);
  ASSERT_FALSE(ir.empty()) << diagnostics;
  EXPECT_EQ(count(ir, "graph.abs"), 1) << ir;
  EXPECT_EQ(count(ir, "0x7F800000"), 1) << ir; // |x| == +inf
  EXPECT_EQ(count(ir, "0xFF800000"), 2) << ir; // x == -inf, x < -inf
  EXPECT_EQ(count(ir, "predicate = \"eq\""), 2) << ir;
  EXPECT_EQ(count(ir, "predicate = \"lt\""), 1) << ir;
  EXPECT_EQ(count(ir, "predicate = \"ne\""), 1) << ir;
}

TEST(OnnxConverters, MathFunctionsTakeFloatsOnly) {
  Model m(13);
  m.input("x", kI64, {4});
  m.node("Sign", {"x"}, {"y"});
  m.output("y", kI64);
  std::string diagnostics;
  EXPECT_TRUE(m.import(diagnostics).empty());
  EXPECT_NE(diagnostics.find("unsupported input element type i64 in Sign"),
            std::string::npos)
      << diagnostics;
}

TEST(OnnxConverters, CastLikeToUint16IsRefused) {
  Model m(15);
  m.input("x", kF32, {4});
  m.input("like", onnx::TensorProto::UINT16, {1});
  m.node("CastLike", {"x", "like"}, {"y"});
  m.output("y", onnx::TensorProto::UINT16);
  std::string diagnostics;
  EXPECT_TRUE(m.import(diagnostics).empty());
  EXPECT_NE(diagnostics.find("UINT16"), std::string::npos) << diagnostics;
}

/// Imports one NegativeLogLikelihoodLoss node and returns the diagnostics.
std::string nllLossDiagnostics(std::vector<int64_t> inputDims, int targetType,
                               std::vector<int64_t> targetDims,
                               std::optional<std::vector<int64_t>> weightDims,
                               const std::string &reduction) {
  Model m(13);
  m.input("x", kF32, inputDims);
  m.input("t", targetType, targetDims);
  std::vector<std::string> inputs = {"x", "t"};
  if (weightDims) {
    m.input("w", kF32, *weightDims);
    inputs.push_back("w");
  }
  setString(m.node("NegativeLogLikelihoodLoss", inputs, {"loss"}), "reduction",
            reduction);
  m.output("loss", kF32);
  std::string diagnostics;
  EXPECT_TRUE(m.import(diagnostics).empty());
  return diagnostics;
}

TEST(OnnxConverters, LossesRefuseMismatchedInputs) {
  EXPECT_NE(nllLossDiagnostics({3, 4}, kI64, {3}, std::nullopt, "avg")
                .find("invalid attribute 'reduction' = \"avg\" (none, sum or "
                      "mean) in NegativeLogLikelihoodLoss"),
            std::string::npos);
  EXPECT_NE(nllLossDiagnostics({3, 4, 5}, kI64, {3, 4}, std::nullopt, "sum")
                .find("invalid target tensor<3x4xi64> for input "
                      "tensor<3x4x5xf32> (it must be [N, d1, ...] of input "
                      "[N, C, d1, ...])"),
            std::string::npos);
  EXPECT_NE(
      nllLossDiagnostics({3, 4}, kI64, {3}, std::vector<int64_t>{5}, "mean")
          .find("invalid weight tensor<5xf32> for input "
                "tensor<3x4xf32> (it must be [C] of its type)"),
      std::string::npos);
  EXPECT_NE(nllLossDiagnostics({4}, kI64, {}, std::nullopt, "mean")
                .find("invalid input of rank 1 (it must be [N, C, d1, ...])"),
            std::string::npos);
  EXPECT_NE(nllLossDiagnostics({3, 4}, kF32, {3}, std::nullopt, "mean")
                .find("unsupported target element type f32"),
            std::string::npos);
}

TEST(OnnxConverters, SoftmaxCrossEntropyLossIsLogSoftmaxAndAPick) {
  Model m(13);
  m.input("x", kF32, {-1, 5, 2});
  m.input("t", kI64, {-1, 2});
  auto &node = m.node("SoftmaxCrossEntropyLoss", {"x", "t"}, {"loss", "logp"});
  setInt(node, "ignore_index", -1);
  m.output("loss", kF32);
  m.output("logp", kF32);
  std::string diagnostics;
  std::string ir = m.import(diagnostics);
  ASSERT_FALSE(ir.empty()) << diagnostics;
  EXPECT_EQ(count(ir, "graph.log_softmax"), 1) << ir;
  EXPECT_EQ(count(ir, "graph.gather_elements"), 1) << ir;
  // Mean over the kept elements: the loss sum divided by the mask's sum.
  EXPECT_EQ(count(ir, "graph.reduce_sum"), 2) << ir;
  EXPECT_EQ(count(ir, "graph.div"), 1) << ir;
}

/// The diagnostics of a model that must not import.
std::string refusal(Model &m) {
  std::string diagnostics;
  EXPECT_TRUE(m.import(diagnostics).empty());
  return diagnostics;
}

TEST(OnnxConverters, PositionalMasksRefuseWhatTheyCannotBuild) {
  {
    Model m(14);
    m.input("x", kF32, {4});
    m.node("Trilu", {"x"}, {"y"});
    m.output("y", kF32);
    EXPECT_NE(refusal(m).find("invalid input of rank 1 (Trilu takes rank 2 or "
                              "more) in Trilu"),
              std::string::npos);
  }
  {
    Model m(14);
    m.input("x", kF32, {3, -1});
    m.node("Trilu", {"x"}, {"y"});
    m.output("y", kF32);
    EXPECT_NE(refusal(m).find("unsupported dynamic matrix dimensions in "
                              "tensor<3x?xf32>"),
              std::string::npos);
  }
  {
    Model m(14);
    m.input("x", kF32, {3, 3});
    m.initializer("k", {1, 2});
    m.node("Trilu", {"x", "k"}, {"y"});
    m.output("y", kF32);
    EXPECT_NE(refusal(m).find("invalid 'k' input of 2 elements (it is a "
                              "scalar)"),
              std::string::npos);
  }
  {
    Model m(13);
    m.input("x", kI64, {2, 3});
    m.node("Hardmax", {"x"}, {"y"});
    m.output("y", kI64);
    EXPECT_NE(refusal(m).find("unsupported input element type i64 in Hardmax"),
              std::string::npos);
  }
  {
    Model m(13);
    m.input("x", kF32, {2, 3});
    setInt(m.node("Hardmax", {"x"}, {"y"}), "axis", 2);
    m.output("y", kF32);
    EXPECT_NE(refusal(m).find("invalid attribute 'axis' = 2 out of range for "
                              "rank 2"),
              std::string::npos);
  }
  {
    Model m(11);
    m.input("i", kI64, {3});
    m.input("depth", kI64, {});
    m.floatInitializer("values", {0, 1}, {2});
    m.node("OneHot", {"i", "depth", "values"}, {"y"});
    m.output("y", kF32);
    EXPECT_NE(refusal(m).find("unsupported non-constant 'depth' input in "
                              "OneHot"),
              std::string::npos);
  }
  {
    Model m(11);
    m.input("i", kI64, {3});
    m.initializer("depth", {0}, {});
    m.floatInitializer("values", {0, 1}, {2});
    m.node("OneHot", {"i", "depth", "values"}, {"y"});
    m.output("y", kF32);
    EXPECT_NE(refusal(m).find("unsupported 'depth' = 0"), std::string::npos);
  }
  {
    Model m(11);
    m.input("i", kI64, {3});
    m.initializer("depth", {4}, {});
    m.floatInitializer("values", {0, 1, 2}, {3});
    m.node("OneHot", {"i", "depth", "values"}, {"y"});
    m.output("y", kF32);
    EXPECT_NE(refusal(m).find("invalid 'values' input tensor<3xf32> (it is "
                              "[off, on])"),
              std::string::npos);
  }
  {
    Model m(9);
    m.input("x", kF32, {-1, 3});
    m.node("EyeLike", {"x"}, {"y"});
    m.output("y", kF32);
    EXPECT_NE(refusal(m).find("unsupported dynamic input tensor<?x3xf32>"),
              std::string::npos);
  }
  Model m(9);
  m.input("x", kF32, {2, 3, 4});
  m.node("EyeLike", {"x"}, {"y"});
  m.output("y", kF32);
  EXPECT_NE(refusal(m).find("invalid input of rank 3 (EyeLike takes rank 2)"),
            std::string::npos);
}

TEST(OnnxConverters, TriluWithAHugeKKeepsNothingOrEverything) {
  // k far beyond the matrix: no overflow in j - i >= k.
  Model m(14);
  m.input("x", kF32, {2, 3});
  m.initializer("k", {std::numeric_limits<int64_t>::min()}, {});
  m.node("Trilu", {"x", "k"}, {"upper"});
  setInt(m.node("Trilu", {"x", "k"}, {"lower"}), "upper", 0);
  m.output("upper", kF32);
  m.output("lower", kF32);
  std::string diagnostics;
  std::string ir = m.import(diagnostics);
  ASSERT_FALSE(ir.empty()) << diagnostics;
  EXPECT_EQ(count(ir, "dense<true> : tensor<2x3xi1>"), 1) << ir;
  EXPECT_EQ(count(ir, "dense<false> : tensor<2x3xi1>"), 1) << ir;
}

TEST(OnnxConverters, LayerNormalizationStatisticsAreF32) {
  {
    Model m(17);
    m.input("x", kF32, {2, 3});
    m.floatInitializer("g", {1, 1, 1}, {3});
    auto &node = m.node("LayerNormalization", {"x", "g"}, {"y", "mean", "inv"});
    setInt(node, "stash_type", onnx::TensorProto::DOUBLE);
    m.output("y", kF32);
    m.output("mean", kF32);
    m.output("inv", kF32);
    EXPECT_NE(refusal(m).find("unsupported attribute 'stash_type' = 11 with "
                              "the Mean or InvStdDev output"),
              std::string::npos);
  }
  Model m(17);
  m.input("x", kF32, {2, 3});
  m.floatInitializer("g", {1, 1, 1}, {3});
  m.node("LayerNormalization", {"x", "g"}, {"y", "", "inv"});
  m.output("y", kF32);
  m.output("inv", kF32);
  std::string diagnostics;
  std::string ir = m.import(diagnostics);
  ASSERT_FALSE(ir.empty()) << diagnostics;
  // The fused op for y, and the statistics beside it, kept dims.
  EXPECT_EQ(count(ir, "graph.layer_norm"), 1) << ir;
  EXPECT_EQ(count(ir, "graph.rsqrt"), 1) << ir;
  EXPECT_EQ(count(ir, "keep_dims = true"), 2) << ir;
}

/// The diagnostics of a ConvTranspose of x [1, 4, H, W] by a constant
/// weight [4, 2, 3, 3] with `configure` setting attributes.
std::string convTransposeRefusal(std::vector<int64_t> xDims,
                                 void (*configure)(onnx::NodeProto &)) {
  Model m(13);
  m.input("x", kF32, xDims);
  m.floatInitializer("w", std::vector<float>(4 * 2 * 9, 0.5f), {4, 2, 3, 3});
  configure(m.node("ConvTranspose", {"x", "w"}, {"y"}));
  m.output("y", kF32);
  return refusal(m);
}

TEST(OnnxConverters, ConvTransposeRefusesWhatItCannotBuild) {
  auto none = [](onnx::NodeProto &) {};
  EXPECT_NE(convTransposeRefusal({1, 4, -1, 5}, none)
                .find("unsupported ConvTranspose over the dynamic height or "
                      "width of tensor<1x4x?x5xf32>"),
            std::string::npos);
  EXPECT_NE(convTransposeRefusal(
                {1, 4, 5, 5}, [](onnx::NodeProto &n) { setInt(n, "group", 3); })
                .find("invalid attribute 'group' = 3 with input "
                      "tensor<1x4x5x5xf32> and weight tensor<4x2x3x3xf32>"),
            std::string::npos);
  EXPECT_NE(convTransposeRefusal({1, 4, 2, 2},
                                 [](onnx::NodeProto &n) {
                                   setInts(n, "pads", {0, 0, 4, 0});
                                 })
                .find("unsupported output of size 0 in spatial dimension 0 "
                      "that no input reaches"),
            std::string::npos);
  EXPECT_NE(convTransposeRefusal({1, 4, 2, 2},
                                 [](onnx::NodeProto &n) {
                                   setInts(n, "output_padding", {-1, 0});
                                 })
                .find("unsupported attribute 'output_padding' = [-1, 0]"),
            std::string::npos);
  {
    Model m(13);
    m.input("x", kF32, {1, 4, 2, 2, 2});
    m.floatInitializer("w", std::vector<float>(4 * 2 * 8, 0.5f),
                       {4, 2, 2, 2, 2});
    m.node("ConvTranspose", {"x", "w"}, {"y"});
    m.output("y", kF32);
    EXPECT_NE(refusal(m).find("unsupported 3-D ConvTranspose"),
              std::string::npos);
  }
  Model m(13);
  m.input("x", kF32, {1, 4});
  m.floatInitializer("w", std::vector<float>(8, 0.5f), {4, 2});
  m.node("ConvTranspose", {"x", "w"}, {"y"});
  m.output("y", kF32);
  EXPECT_NE(refusal(m).find("invalid input tensor<1x4xf32> (ConvTranspose "
                            "takes [N, C, spatial...])"),
            std::string::npos);
}

TEST(OnnxConverters, ConvTransposeIsABackpropInputCroppedAndPadded) {
  // output_shape 9 x 9 from a full 7 x 7 (3x3 input, stride 2, 3x3 kernel):
  // total -2, begin -1: one zero row and column before and after.
  Model m(13);
  m.input("x", kF32, {-1, 4, 3, 3});
  m.floatInitializer("w", std::vector<float>(4 * 2 * 9, 0.5f), {4, 2, 3, 3});
  auto &node = m.node("ConvTranspose", {"x", "w"}, {"y"});
  setInts(node, "strides", {2, 2});
  setInts(node, "output_shape", {9, 9});
  m.output("y", kF32);
  std::string diagnostics;
  std::string ir = m.import(diagnostics);
  ASSERT_FALSE(ir.empty()) << diagnostics;
  EXPECT_EQ(count(ir, "graph.conv2d_backprop_input"), 1) << ir;
  EXPECT_EQ(count(ir, "input_size = [7, 7]"), 1) << ir;
  EXPECT_EQ(count(ir, "pads = [0, 0, 1, 1, 1, 1, 0, 0]"), 1) << ir;
  EXPECT_EQ(count(ir, "-> tensor<?x2x9x9xf32>"), 1) << ir;
}

/// An LSTM over x [T = 3, B = 2, I = 4] of hidden size 5 (W [1, 20, 4],
/// R [1, 20, 5] initializers), changed by `configure`; returns the
/// diagnostics of its refusal.
std::string lstmRefusal(std::vector<int64_t> xDims,
                        void (*configure)(Model &, onnx::NodeProto &)) {
  Model m(14);
  m.input("x", kF32, xDims);
  m.floatInitializer("w", std::vector<float>(20 * 4, 0.1f), {1, 20, 4});
  m.floatInitializer("r", std::vector<float>(20 * 5, 0.1f), {1, 20, 5});
  configure(m, m.node("LSTM", {"x", "w", "r"}, {"y"}));
  m.output("y", kF32);
  return refusal(m);
}

TEST(OnnxConverters, RecurrentLayersRefuseWhatTheyCannotUnroll) {
  auto none = [](Model &, onnx::NodeProto &) {};
  EXPECT_NE(
      lstmRefusal({-1, 2, 4}, none)
          .find("unsupported dynamic sequence length of tensor<?x2x4xf32> "
                "(the layer is unrolled over a static one) in LSTM"),
      std::string::npos);
  EXPECT_NE(lstmRefusal({3, 2, 4},
                        [](Model &, onnx::NodeProto &n) {
                          setString(n, "direction", "sideways");
                        })
                .find("invalid attribute 'direction' = \"sideways\""),
            std::string::npos);
  EXPECT_NE(lstmRefusal({3, 2, 4},
                        [](Model &, onnx::NodeProto &n) {
                          setInt(n, "input_forget", 1);
                        })
                .find("unsupported attribute 'input_forget' = 1"),
            std::string::npos);
  EXPECT_NE(lstmRefusal({3, 2, 4},
                        [](Model &, onnx::NodeProto &n) {
                          auto *a = n.add_attribute();
                          a->set_name("activations");
                          a->set_type(onnx::AttributeProto::STRINGS);
                          for (const char *f : {"Sigmoid", "Softsign", "Tanh"})
                            a->add_strings(f);
                        })
                .find("unsupported activation 'Softsign'"),
            std::string::npos);
  EXPECT_NE(lstmRefusal({3, 2, 4},
                        [](Model &, onnx::NodeProto &n) {
                          auto *a = n.add_attribute();
                          a->set_name("activations");
                          a->set_type(onnx::AttributeProto::STRINGS);
                          a->add_strings("Tanh");
                        })
                .find("invalid attribute 'activations' of 1 functions (3 per "
                      "direction)"),
            std::string::npos);
  EXPECT_NE(lstmRefusal(
                {3, 2, 4},
                [](Model &, onnx::NodeProto &n) { setFloat(n, "clip", -1.0f); })
                .find("invalid attribute 'clip' = -1"),
            std::string::npos);
  EXPECT_NE(lstmRefusal({3, 2, 6}, none)
                .find("invalid weights W tensor<1x20x4xf32> and R "
                      "tensor<1x20x5xf32> for input tensor<3x2x6xf32>, 1 "
                      "direction(s) and hidden size 5"),
            std::string::npos);
  EXPECT_NE(
      lstmRefusal({3, 2, 4},
                  [](Model &m, onnx::NodeProto &n) {
                    m.floatInitializer("b", std::vector<float>(20, 0), {1, 20});
                    n.add_input("b");
                  })
          .find("invalid bias tensor<1x20xf32> (it is [1, 40])"),
      std::string::npos);
  EXPECT_NE(
      lstmRefusal(
          {3, 2, 4},
          [](Model &m, onnx::NodeProto &n) {
            m.floatInitializer("h0", std::vector<float>(10, 0), {2, 1, 5});
            for (const char *in : {"", "", "h0"})
              n.add_input(in);
          })
          .find("invalid initial state tensor<2x1x5xf32> for 1 "
                "direction(s) of hidden size 5"),
      std::string::npos);
  EXPECT_NE(
      lstmRefusal({3, 2, 4},
                  [](Model &m, onnx::NodeProto &n) {
                    m.floatInitializer("p", std::vector<float>(5, 0), {1, 5});
                    for (const char *in : {"", "", "", "", "p"})
                      n.add_input(in);
                  })
          .find("invalid peepholes tensor<1x5xf32> (it is [1, 15])"),
      std::string::npos);
  EXPECT_NE(lstmRefusal({0, 2, 4}, none)
                .find("unsupported empty sequence of tensor<0x2x4xf32>"),
            std::string::npos);
  {
    Model m(14);
    m.input("x", kF32, {3, 2, 4});
    m.input("w", onnx::TensorProto::DOUBLE, {1, 20, 4});
    m.floatInitializer("r", std::vector<float>(20 * 5, 0.1f), {1, 20, 5});
    m.node("LSTM", {"x", "w", "r"}, {"y"});
    m.output("y", kF32);
    EXPECT_NE(refusal(m).find("unsupported weight input 1 of type "
                              "tensor<1x20x4xf64> (it is a static f32 [D, "
                              "G*H, I or H])"),
              std::string::npos);
  }
  EXPECT_NE(lstmRefusal({3, 2}, none)
                .find("invalid input tensor<3x2xf32> (it is [T, B, I], or "
                      "[B, T, I] with layout = 1)"),
            std::string::npos);
}

/// The diagnostics of a TopK (opset 11) of x by the constant K `k` along
/// `axis`.
std::string topKRefusal(int elemType, std::vector<int64_t> xDims,
                        std::vector<int64_t> k, std::vector<int64_t> kDims,
                        int64_t axis) {
  Model m(11);
  m.input("x", elemType, xDims);
  m.initializer("k", k, kDims);
  setInt(m.node("TopK", {"x", "k"}, {"values", "indices"}), "axis", axis);
  m.output("values", elemType);
  m.output("indices", kI64);
  return refusal(m);
}

TEST(OnnxConverters, TopKRefusesWhatItCannotSelect) {
  EXPECT_NE(topKRefusal(kI64, {2, 5}, {2}, {1}, -1)
                .find("unsupported input element type i64 in TopK"),
            std::string::npos);
  EXPECT_NE(topKRefusal(kF32, {2, 5}, {2}, {1}, 2)
                .find("invalid attribute 'axis' = 2 out of range for rank 2"),
            std::string::npos);
  EXPECT_NE(topKRefusal(kF32, {2, 5}, {2, 3}, {2}, -1)
                .find("invalid 'K' input of 2 elements (it is [1])"),
            std::string::npos);
  EXPECT_NE(topKRefusal(kF32, {2, 5}, {6}, {1}, -1)
                .find("invalid K = 6 for dimension 1 of size 5"),
            std::string::npos);
  EXPECT_NE(topKRefusal(kF32, {-1, 5}, {1}, {1}, 0)
                .find("unsupported TopK along the dynamic dimension 0 of "
                      "tensor<?x5xf32>"),
            std::string::npos);
}

TEST(OnnxConverters, TopKAlongAnInnerAxisTransposesItLast) {
  Model m(11);
  m.input("x", kF32, {4, 6, 3});
  m.initializer("k", {2}, {1});
  setInt(m.node("TopK", {"x", "k"}, {"values", "indices"}), "axis", 1);
  m.output("values", kF32);
  m.output("indices", kI64);
  std::string diagnostics;
  std::string ir = m.import(diagnostics);
  ASSERT_FALSE(ir.empty()) << diagnostics;
  EXPECT_EQ(count(ir, "graph.top_k_indices %"), 1) << ir;
  EXPECT_EQ(count(ir, "(tensor<4x3x6xf32>) -> tensor<4x3x2xi64>"), 1) << ir;
  EXPECT_EQ(count(ir, "graph.transpose"), 3)
      << ir; // x in, values and indices out
}

TEST(OnnxConverters, PoolingCeilModeNeedsAStaticSizeWhereItMatters) {
  {
    Model m(12);
    m.input("x", kF32, {1, 2, -1, 9});
    auto &node = m.node("MaxPool", {"x"}, {"y"});
    setInts(node, "kernel_shape", {3, 3});
    setInts(node, "strides", {2, 2});
    setInt(node, "ceil_mode", 1);
    m.output("y", kF32);
    EXPECT_NE(refusal(m).find("unsupported attribute 'ceil_mode' = 1 with a "
                              "dynamic height or width in MaxPool"),
              std::string::npos);
  }
  // Stride 1 along the dynamic height: ceil and floor agree there; the
  // static width gets one more column (10 -> 4 windows rather than 3).
  Model m(12);
  m.input("x", kF32, {1, 2, -1, 10});
  auto &node = m.node("MaxPool", {"x"}, {"y"});
  setInts(node, "kernel_shape", {3, 3});
  setInts(node, "strides", {1, 3});
  setInt(node, "ceil_mode", 1);
  m.output("y", kF32);
  std::string diagnostics;
  std::string ir = m.import(diagnostics);
  ASSERT_FALSE(ir.empty()) << diagnostics;
  EXPECT_EQ(count(ir, "-> tensor<1x2x?x4xf32>"), 1) << ir;
}

TEST(OnnxConverters, ModOfFloatsNeedsFmod) {
  Model m(13);
  m.input("a", kF32, {4});
  m.input("b", kF32, {4});
  m.node("Mod", {"a", "b"}, {"y"});
  m.output("y", kF32);
  EXPECT_NE(refusal(m).find("invalid attribute 'fmod' = 0 on f32 inputs (ONNX "
                            "requires fmod = 1 for floats) in Mod"),
            std::string::npos);
}

TEST(OnnxConverters, CumSumRefusesWhatItsMaskCannotCover) {
  auto cumsum = [](int elemType, std::vector<int64_t> dims, int64_t axis) {
    Model m(14);
    m.input("x", elemType, dims);
    m.initializer("axis", {axis}, {});
    m.node("CumSum", {"x", "axis"}, {"y"});
    m.output("y", elemType);
    return refusal(m);
  };
  EXPECT_NE(cumsum(kI64, {3}, 0)
                .find("unsupported input element type i64 in "
                      "CumSum"),
            std::string::npos);
  EXPECT_NE(cumsum(kF32, {3, 4}, 2)
                .find("invalid 'axis' = 2 out of range for "
                      "rank 2"),
            std::string::npos);
  EXPECT_NE(cumsum(kF32, {2, 2000}, 1)
                .find("unsupported CumSum along dimension 1 of "
                      "tensor<2x2000xf32> (a static size of at most 1024)"),
            std::string::npos);
  EXPECT_NE(
      cumsum(kF32, {-1, 3}, 0)
          .find("unsupported CumSum along dimension 0 of tensor<?x3xf32>"),
      std::string::npos);
}

TEST(OnnxConverters, SplitProducesSlices) {
  Model m(13);
  m.input("x", kF32, {6, 4});
  m.initializer("split", {2, 4});
  m.node("Split", {"x", "split"}, {"a", "b"});
  m.output("a", kF32);
  m.output("b", kF32);
  std::string diagnostics;
  std::string ir = m.import(diagnostics);
  ASSERT_FALSE(ir.empty()) << diagnostics;
  EXPECT_EQ(count(ir, "graph.slice"), 2) << ir;
  EXPECT_EQ(count(ir, "limits = [2, 4], starts = [0, 0]"), 1) << ir;
  EXPECT_EQ(count(ir, "limits = [6, 4], starts = [2, 0]"), 1) << ir;
}

TEST(OnnxConverters, SliceWithNegativeStepGathers) {
  // x[::-2] on a dim of 5: indices 4, 2, 0.
  Model m(13);
  m.input("x", kF32, {5, 2});
  m.initializer("starts", {-1});
  m.initializer("ends", {-1000});
  m.initializer("axes", {0});
  m.initializer("steps", {-2});
  m.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
  m.output("y", kF32);
  std::string diagnostics;
  std::string ir = m.import(diagnostics);
  ASSERT_FALSE(ir.empty()) << diagnostics;
  EXPECT_EQ(count(ir, "graph.gather"), 1) << ir;
  EXPECT_EQ(count(ir, "dense<[4, 2, 0]>"), 1) << ir;
  EXPECT_EQ(count(ir, "graph.slice"), 0) << ir;
}

// PyTorch writes x[a:] as a Slice with ends = INT64_MAX and x[::-1] with
// ends = INT64_MIN; read through a double, INT64_MAX became INT64_MIN and the
// slice came out empty (issue 13).
TEST(OnnxConverters, SliceWithInt64ExtremesKeepsItsElements) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  Model m(13);
  m.input("x", kF32, {3, 5});
  m.initializer("zero", {0});
  m.initializer("one", {1});
  m.initializer("max", {kMax});
  m.initializer("min", {kMin});
  m.initializer("minus1", {-1});
  m.node("Slice", {"x", "zero", "max", "zero"}, {"all"});
  m.node("Slice", {"x", "one", "max", "one"}, {"tail"});
  m.node("Slice", {"x", "minus1", "min", "zero", "minus1"}, {"reversed"});
  m.node("Slice", {"x", "min", "max", "one", "max"}, {"first"});
  m.output("all", kF32);
  m.output("tail", kF32);
  m.output("reversed", kF32);
  m.output("first", kF32);
  std::string diagnostics;
  std::string ir = m.import(diagnostics);
  ASSERT_FALSE(ir.empty()) << diagnostics;
  EXPECT_EQ(count(ir, "0x5xf32"), 0) << ir;
  EXPECT_EQ(count(ir, ": tensor<3x5xf32>, tensor<3x4xf32>, tensor<3x5xf32>, "
                      "tensor<3x1xf32>\n"),
            1)
      << ir;
  EXPECT_EQ(count(ir, "dense<[2, 1, 0]>"), 1) << ir; // the reversal
}

TEST(OnnxConverters, ShapeSliceToInt64MaxFeedsReshape) {
  // y = Reshape(x, Concat([-1], Shape(x)[2:INT64_MAX])): x.shape[2:] in
  // PyTorch, Silero VAD's STFT front end.
  Model m(13);
  m.input("x", kF32, {1, 3, 4, 5});
  m.initializer("two", {2});
  m.initializer("max", {std::numeric_limits<int64_t>::max()});
  m.initializer("minus1", {-1});
  m.node("Shape", {"x"}, {"s"});
  m.node("Slice", {"s", "two", "max"}, {"tail"});
  setInt(m.node("Concat", {"minus1", "tail"}, {"shape"}), "axis", 0);
  m.node("Reshape", {"x", "shape"}, {"y"});
  m.output("y", kF32);
  std::string diagnostics;
  std::string ir = m.import(diagnostics);
  ASSERT_FALSE(ir.empty()) << diagnostics;
  EXPECT_EQ(count(ir, "graph.reshape %arg0 : (tensor<1x3x4x5xf32>) -> "
                      "tensor<3x4x5xf32>"),
            1)
      << ir;
}

TEST(OnnxConverters, SliceAttributesWithInt64Max) {
  // Opset 9: starts and ends are attributes.
  Model m(9);
  m.input("x", kF32, {3, 5});
  auto &n = m.node("Slice", {"x"}, {"y"});
  setInts(n, "starts", {1, -2});
  setInts(n, "ends", {std::numeric_limits<int64_t>::max(),
                      std::numeric_limits<int64_t>::max()});
  setInts(n, "axes", {0, 1});
  m.output("y", kF32);
  std::string diagnostics;
  std::string ir = m.import(diagnostics);
  ASSERT_FALSE(ir.empty()) << diagnostics;
  EXPECT_EQ(count(ir, "{limits = [3, 5], starts = [1, 3]} : "
                      "(tensor<3x5xf32>) -> tensor<2x2xf32>"),
            1)
      << ir;
}

// What the int64-exact folds refuse, with a message naming the node.
TEST(OnnxConverters, RangeRefusesHugeResultsAndMixedTypes) {
  {
    Model m(13);
    m.initializer("start", {0}, {});
    m.initializer("limit", {std::numeric_limits<int64_t>::max()}, {});
    m.initializer("delta", {1}, {});
    m.node("Range", {"start", "limit", "delta"}, {"y"});
    m.output("y", kI64);
    std::string diagnostics;
    EXPECT_TRUE(m.import(diagnostics).empty());
    EXPECT_NE(diagnostics.find("unsupported range [0, 9223372036854775807) "
                               "step 1 of more than 67108864 elements in "
                               "Range node"),
              std::string::npos)
        << diagnostics;
  }
  {
    Model m(13);
    m.initializer("start", {0}, {});
    m.floatInitializer("limit", {4.0f}, {});
    m.initializer("delta", {1}, {});
    m.node("Range", {"start", "limit", "delta"}, {"y"});
    m.output("y", kI64);
    std::string diagnostics;
    EXPECT_TRUE(m.import(diagnostics).empty());
    EXPECT_NE(diagnostics.find("unsupported 'limit' of type f32 with 'start' "
                               "of type i64 in Range node"),
              std::string::npos)
        << diagnostics;
  }
}

TEST(OnnxConverters, FloatRangeRefusesZeroAndInfiniteSteps) {
  for (float limit : {4.0f, std::numeric_limits<float>::infinity()}) {
    Model m(13);
    m.floatInitializer("start", {0.0f}, {});
    m.floatInitializer("limit", {limit}, {});
    m.floatInitializer("delta", {std::isinf(limit) ? 1.0f : 0.0f}, {});
    m.node("Range", {"start", "limit", "delta"}, {"y"});
    m.output("y", kF32);
    std::string diagnostics;
    EXPECT_TRUE(m.import(diagnostics).empty());
    EXPECT_NE(diagnostics.find("unsupported range [0.000000, "), std::string::npos)
        << diagnostics;
    EXPECT_NE(diagnostics.find("in Range node"), std::string::npos)
        << diagnostics;
  }
}

TEST(OnnxConverters, ConstantOfShapeRefusesHugeShapes) {
  // 2^62 x 4 elements: the product overflows int64.
  Model m(13);
  m.initializer("shape", {int64_t(1) << 62, 4});
  m.node("ConstantOfShape", {"shape"}, {"y"});
  m.output("y", kF32);
  std::string diagnostics;
  EXPECT_TRUE(m.import(diagnostics).empty());
  EXPECT_NE(diagnostics.find("unsupported shape [4611686018427387904, 4] "
                             "with more than 67108864 elements in "
                             "ConstantOfShape node"),
            std::string::npos)
      << diagnostics;
}

TEST(OnnxConverters, IntegerInputsOfTheWrongTypeAreRefused) {
  {
    Model m(13);
    m.input("x", kF32, {5, 2});
    m.floatInitializer("i", {1.0f}, {1});
    m.node("Gather", {"x", "i"}, {"y"});
    m.output("y", kF32);
    std::string diagnostics;
    EXPECT_TRUE(m.import(diagnostics).empty());
    EXPECT_NE(diagnostics.find("unsupported indices of element type f32 in "
                               "Gather node"),
              std::string::npos)
        << diagnostics;
  }
  {
    Model m(13);
    m.input("x", kI64, {4});
    m.floatInitializer("lo", {0.5f}, {});
    m.node("Clip", {"x", "lo"}, {"y"});
    m.output("y", kI64);
    std::string diagnostics;
    EXPECT_TRUE(m.import(diagnostics).empty());
    EXPECT_NE(diagnostics.find("unsupported 'min' input of type f32 for an "
                               "input of type i64 in Clip node"),
              std::string::npos)
        << diagnostics;
  }
  {
    Model m(13);
    m.input("x", kI64, {4});
    m.initializer("pads", {1, 1});
    m.initializer("value", {5}, {});
    m.node("Pad", {"x", "pads", "value"}, {"y"});
    m.output("y", kI64);
    std::string diagnostics;
    EXPECT_TRUE(m.import(diagnostics).empty());
    EXPECT_NE(diagnostics.find("unsupported 'constant_value' = 5 of type i64 "
                               "(graph.pad pads with an f32 value) in Pad node"),
              std::string::npos)
        << diagnostics;
  }
}

TEST(OnnxConverters, ResizeRefusesFloatSizes) {
  Model m(13);
  m.input("x", kF32, {1, 1, 2, 2});
  m.floatInitializer("sizes", {1, 1, 4, 4}, {4});
  m.node("Resize", {"x", "", "", "sizes"}, {"y"});
  m.output("y", kF32);
  std::string diagnostics;
  EXPECT_TRUE(m.import(diagnostics).empty());
  EXPECT_NE(diagnostics.find("unsupported sizes of element type f32 in Resize "
                             "node"),
            std::string::npos)
      << diagnostics;
}

TEST(OnnxConverters, GatherNormalizesNegativeIndices) {
  Model m(13);
  m.input("x", kF32, {5, 2});
  m.input("i", kI64, {3});
  m.initializer("c", {-1, 0});
  setInt(m.node("Gather", {"x", "c"}, {"y"}), "axis", -2);
  m.node("Gather", {"x", "i"}, {"z"});
  m.output("y", kF32);
  m.output("z", kF32);
  std::string diagnostics;
  std::string ir = m.import(diagnostics);
  ASSERT_FALSE(ir.empty()) << diagnostics;
  EXPECT_EQ(count(ir, "dense<[4, 0]>"), 1) << ir; // constant: folded
  // Run-time indices: select(i < 0, i + 5, i).
  EXPECT_EQ(count(ir, "predicate = \"lt\""), 1) << ir;
  EXPECT_EQ(count(ir, "graph.select"), 1) << ir;
  EXPECT_EQ(count(ir, "graph.gather"), 2) << ir;
}

TEST(OnnxConverters, HardSigmoidMapsOnlyItsOwnConstants) {
  Model m(13);
  m.input("x", kF32, {4});
  onnx::NodeProto &exact = m.node("HardSigmoid", {"x"}, {"a"});
  setFloat(exact, "alpha", 1.0f / 6.0f);
  m.node("HardSigmoid", {"x"}, {"b"}); // alpha 0.2
  m.output("a", kF32);
  m.output("b", kF32);
  std::string diagnostics;
  std::string ir = m.import(diagnostics);
  ASSERT_FALSE(ir.empty()) << diagnostics;
  EXPECT_EQ(count(ir, "graph.hard_sigmoid"), 1) << ir;
  EXPECT_EQ(count(ir, "graph.mul"), 1) << ir;
  EXPECT_EQ(count(ir, "graph.clip"), 1) << ir;
}

TEST(OnnxConverters, ArgMaxYieldsI64) {
  Model m(13);
  m.input("x", kF32, {-1, 10});
  setInt(m.node("ArgMax", {"x"}, {"y"}), "axis", 1);
  m.output("y", kI64);
  std::string diagnostics;
  std::string ir = m.import(diagnostics);
  ASSERT_FALSE(ir.empty()) << diagnostics;
  EXPECT_EQ(count(ir, "graph.argmax"), 1) << ir;
  EXPECT_EQ(count(ir, "(tensor<?xi32>) -> tensor<?x1xi32>"), 1) << ir;
  EXPECT_EQ(count(ir, "(tensor<?x1xi32>) -> tensor<?x1xi64>"), 1) << ir;
}

TEST(OnnxConverters, ReduceSumAxesInput) {
  Model m(13);
  m.input("x", kF32, {2, 3, 4});
  m.initializer("axes", {-1, 0});
  setInt(m.node("ReduceSum", {"x", "axes"}, {"y"}), "keepdims", 0);
  m.output("y", kF32);
  std::string diagnostics;
  std::string ir = m.import(diagnostics);
  ASSERT_FALSE(ir.empty()) << diagnostics;
  EXPECT_EQ(count(ir, "axes = [0, 2]"), 1) << ir;
  EXPECT_EQ(count(ir, "-> tensor<3xf32>"), 1) << ir;
}

TEST(OnnxConverters, LogicalOpsOnBooleans) {
  Model m(13);
  m.input("a", kBool, {3});
  m.input("b", kBool, {3});
  m.node("And", {"a", "b"}, {"and"});
  m.node("Or", {"a", "b"}, {"or"});
  m.node("Not", {"a"}, {"not"});
  m.output("and", kBool);
  m.output("or", kBool);
  m.output("not", kBool);
  std::string diagnostics;
  std::string ir = m.import(diagnostics);
  ASSERT_FALSE(ir.empty()) << diagnostics;
  EXPECT_EQ(count(ir, "graph.select"), 2) << ir;
  EXPECT_EQ(count(ir, "predicate = \"eq\""), 1) << ir;
}

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

TEST(OnnxConverters, CastToUint16IsUnsupported) {
  Model m(13);
  m.input("x", kF32, {2});
  setInt(m.node("Cast", {"x"}, {"y"}), "to", onnx::TensorProto::UINT16);
  m.output("y", onnx::TensorProto::UINT16);
  std::string diagnostics;
  EXPECT_TRUE(m.import(diagnostics).empty());
  EXPECT_NE(diagnostics.find("unsupported attribute 'to' = UINT16 in Cast "
                             "node 'Cast_1' (opset 13)"),
            std::string::npos)
      << diagnostics;
}

TEST(OnnxConverters, ArgMaxSelectLastIndexOnDynamicAxisIsUnsupported) {
  Model m(13);
  m.input("x", kF32, {2, -1});
  onnx::NodeProto &node = m.node("ArgMax", {"x"}, {"y"});
  setInt(node, "axis", 1);
  setInt(node, "select_last_index", 1);
  m.output("y", kI64);
  std::string diagnostics;
  EXPECT_TRUE(m.import(diagnostics).empty());
  EXPECT_NE(diagnostics.find("unsupported attribute 'select_last_index' = 1 "
                             "on a dynamic axis in ArgMax node"),
            std::string::npos)
      << diagnostics;
}

TEST(OnnxConverters, NonConstantReshapeShapeIsUnsupported) {
  Model m(13);
  m.input("x", kF32, {2, 3});
  m.input("s", kI64, {2});
  m.node("Reshape", {"x", "s"}, {"y"});
  m.output("y", kF32);
  std::string diagnostics;
  EXPECT_TRUE(m.import(diagnostics).empty());
  EXPECT_NE(diagnostics.find("unsupported non-constant 'shape' input in "
                             "Reshape node"),
            std::string::npos)
      << diagnostics;
}

//===----------------------------------------------------------------------===//
// Host arithmetic
//===----------------------------------------------------------------------===//

class HostFoldingTest : public ::testing::Test {
protected:
  mlir::MLIRContext context;
  mlir::Type f32 = mlir::Float32Type::get(&context);
  mlir::Type i32 = mlir::IntegerType::get(&context, 32);
  mlir::Type i64 = mlir::IntegerType::get(&context, 64);
  static constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  static constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
};

TEST_F(HostFoldingTest, IntegerDivisionTruncatesAndBroadcasts) {
  HostTensor a = makeIntTensor(i32, {2, 2}, {7, -7, 8, -9});
  HostTensor b = makeIntTensor(i32, {2}, {2, 4});
  std::optional<HostTensor> q = foldBinary(HostBinary::Div, a, b);
  ASSERT_TRUE(q);
  EXPECT_EQ(q->ints, (std::vector<int64_t>{3, -1, 4, -2}));
  HostTensor zero = makeIntTensor(i32, {}, {0});
  EXPECT_FALSE(foldBinary(HostBinary::Div, a, zero)); // left to run time
}

TEST_F(HostFoldingTest, FloatResultsRoundToF32) {
  HostTensor a = makeFloatTensor(f32, {}, {1.0});
  HostTensor b = makeFloatTensor(f32, {}, {3.0});
  std::optional<HostTensor> q = foldBinary(HostBinary::Div, a, b);
  ASSERT_TRUE(q);
  EXPECT_EQ(q->floats[0], static_cast<double>(1.0f / 3.0f));
}

TEST_F(HostFoldingTest, CastTruncatesTowardZeroAndSaturates) {
  HostTensor x = makeFloatTensor(f32, {3}, {-2.7, 2.7, 1e10});
  EXPECT_EQ(foldCast(x, i32).ints, (std::vector<int64_t>{-2, 2, 2147483647}));
  HostTensor big = makeFloatTensor(f32, {3}, {1e30, -1e30, std::nan("")});
  EXPECT_EQ(foldCast(big, i64).ints, (std::vector<int64_t>{kMax, kMin, 0}));
}

// Integers near 2^63 are not doubles: INT64_MAX read through a double is
// 2^63, which overflows back to INT64_MIN (the empty x[2:] of issue 13).
TEST_F(HostFoldingTest, Int64ExtremesStayExact) {
  HostTensor ends = makeI64Tensor(&context, {kMax, kMin, kMax - 1, kMin + 1});
  EXPECT_EQ(ends.asInts(),
            (std::vector<int64_t>{kMax, kMin, kMax - 1, kMin + 1}));
  // Folded shape arithmetic on them: Concat, Gather, Cast, Add, Neg, Max.
  HostTensor two = makeI64Tensor(&context, {2});
  std::optional<HostTensor> c = foldConcat({&two, &ends}, 0);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->ints[1], kMax);
  std::optional<HostTensor> g =
      foldGather(ends, makeI64Tensor(&context, {1, 0}), 0);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->ints, (std::vector<int64_t>{kMin, kMax}));
  EXPECT_EQ(foldCast(ends, i64).ints, ends.ints);
  // i64 -> i32 wraps as graph.cast does: INT64_MAX's low 32 bits are -1.
  EXPECT_EQ(foldCast(ends, i32).ints[0], -1);
  HostTensor one = makeI64Tensor(&context, {1}, /*scalar=*/true);
  std::optional<HostTensor> sum = foldBinary(HostBinary::Sub, ends, one);
  ASSERT_TRUE(sum);
  EXPECT_EQ(sum->ints[0], kMax - 1);
  EXPECT_EQ(sum->ints[1], kMax); // wraps like the graph op
  std::optional<HostTensor> neg = foldUnary(HostUnary::Neg, ends);
  ASSERT_TRUE(neg);
  EXPECT_EQ(neg->ints[0], kMin + 1);
  std::optional<HostTensor> mx = foldBinary(HostBinary::Max, ends, one);
  ASSERT_TRUE(mx);
  EXPECT_EQ(mx->ints, (std::vector<int64_t>{kMax, 1, kMax - 1, 1}));
  HostTensor r = foldReduce(HostReduce::Max, ends, {true}, false);
  EXPECT_EQ(r.ints, (std::vector<int64_t>{kMax}));
}

TEST_F(HostFoldingTest, StepCountNeverOverflows) {
  EXPECT_EQ(stepCount(0, kMax, 1), kMax);
  EXPECT_EQ(stepCount(0, 5, 2), 3);
  EXPECT_EQ(stepCount(1, 5, kMax), 1);
  EXPECT_EQ(stepCount(4, -1, -1), 5);
  EXPECT_EQ(stepCount(4, -1, kMin), 1);
  EXPECT_EQ(stepCount(4, -1, -2), 3);
  EXPECT_EQ(stepCount(kMin, kMax, 1), kMax); // saturates
  EXPECT_EQ(stepCount(kMax, kMin, kMin), 2);
  EXPECT_EQ(stepCount(3, 3, 1), 0);
  EXPECT_EQ(stepCount(3, 5, -1), 0);
  EXPECT_EQ(checkedProductOf({int64_t(1) << 62, 4}), std::nullopt);
  EXPECT_EQ(checkedProductOf({3, 5}), 15);
}

TEST_F(HostFoldingTest, SliceGatherConcatTranspose) {
  HostTensor x = makeIntTensor(i32, {2, 3}, {0, 1, 2, 3, 4, 5});
  EXPECT_EQ(foldSlice(x, {1, 2}, {1, -2}, {1, 2}).ints,
            (std::vector<int64_t>{5, 3}));
  HostTensor idx = makeIntTensor(i32, {2}, {-1, 0});
  std::optional<HostTensor> g = foldGather(x, idx, 1);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->ints, (std::vector<int64_t>{2, 0, 5, 3}));
  HostTensor bad = makeIntTensor(i32, {1}, {3});
  EXPECT_FALSE(foldGather(x, bad, 1));
  std::optional<HostTensor> c = foldConcat({&x, &x}, 1);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->shape, (std::vector<int64_t>{2, 6}));
  EXPECT_EQ(c->ints[3], 0);
  EXPECT_EQ(foldTranspose(x, {1, 0}).ints,
            (std::vector<int64_t>{0, 3, 1, 4, 2, 5}));
}

TEST_F(HostFoldingTest, UnknownEntriesPropagateThroughArithmetic) {
  HostTensor a = makeIntTensor(i64, {2}, {0, 6});
  a.setUnknown(0);
  HostTensor b = makeIntTensor(i64, {}, {2});
  std::optional<HostTensor> q = foldBinary(HostBinary::Div, a, b);
  ASSERT_TRUE(q);
  EXPECT_TRUE(q->isUnknown(0));
  EXPECT_EQ(q->ints[1], 3);
  EXPECT_FALSE(foldBinary(HostBinary::Eq, a, b));
  HostTensor c = foldCast(a, i32);
  EXPECT_TRUE(c.isUnknown(0));
  EXPECT_EQ(formatPartialInts(c), "[?, 6]");
  // Data movement keeps them where they go.
  std::optional<HostTensor> cat = foldConcat({&b, &a}, 0);
  EXPECT_FALSE(cat); // rank 0 and rank 1 do not concatenate
  HostTensor b1 = makeIntTensor(i64, {1}, {2});
  cat = foldConcat({&b1, &a}, 0);
  ASSERT_TRUE(cat);
  EXPECT_EQ(formatPartialInts(*cat), "[2, ?, 6]");
  EXPECT_EQ(formatPartialInts(foldSlice(*cat, {2}, {-1}, {3})), "[6, ?, 2]");
  // In f32, NaN is a value, not an unknown.
  EXPECT_FALSE(makeFloatTensor(f32, {1}, {std::nan("")}).hasUnknowns());
}

TEST_F(HostFoldingTest, ReduceKeepsOrDropsAxes) {
  HostTensor x = makeIntTensor(i32, {2, 3}, {0, 1, 2, 3, 4, 5});
  HostTensor sum = foldReduce(HostReduce::Sum, x, {false, true}, true);
  EXPECT_EQ(sum.shape, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(sum.ints, (std::vector<int64_t>{3, 12}));
  HostTensor prod = foldReduce(HostReduce::Prod, x, {true, false}, false);
  EXPECT_EQ(prod.ints, (std::vector<int64_t>{0, 4, 10}));
}

//===----------------------------------------------------------------------===//
// Activations, PRelu, Tile, InstanceNormalization (Activations.cpp)
//===----------------------------------------------------------------------===//

TEST(OnnxConverters, TileConcatenatesCopiesAlongRepeatedDims) {
  Model m(13);
  m.input("x", kF32, {2, 3});
  m.initializer("repeats", {2, 1});
  m.node("Tile", {"x", "repeats"}, {"y"});
  m.output("y", kF32);
  std::string diagnostics;
  std::string ir = m.import(diagnostics);
  ASSERT_FALSE(ir.empty()) << diagnostics;
  EXPECT_EQ(count(ir, "graph.concat"), 1) << ir;
  EXPECT_EQ(count(ir, "-> tensor<4x3xf32>"), 1) << ir;
}

TEST(OnnxConverters, TileWithRunTimeRepeatsIsReported) {
  Model m(13);
  m.input("x", kF32, {2, 3});
  m.input("repeats", kI64, {2});
  m.node("Tile", {"x", "repeats"}, {"y"});
  m.output("y", kF32);
  std::string diagnostics;
  EXPECT_TRUE(m.import(diagnostics).empty());
  EXPECT_NE(diagnostics.find("non-constant 'repeats' input in Tile node"),
            std::string::npos)
      << diagnostics;
}

TEST(OnnxConverters, PReluOpset6AppliesAChannelSlopeOnDim1) {
  // PyTorch's opset-6 exports: x [N, C, L], slope [C].
  Model m(6);
  m.input("x", kF32, {2, 3, 4});
  m.input("slope", kF32, {3});
  m.node("PRelu", {"x", "slope"}, {"y"});
  m.output("y", kF32);
  std::string diagnostics;
  std::string ir = m.import(diagnostics);
  ASSERT_FALSE(ir.empty()) << diagnostics;
  EXPECT_EQ(count(ir, "-> tensor<3x1xf32>"), 1) << ir;
  EXPECT_EQ(count(ir, "graph.select"), 1) << ir;
}

TEST(OnnxConverters, PReluSlopeMustBroadcastToTheInput) {
  Model m(16);
  m.input("x", kF32, {2, 3, 4});
  m.input("slope", kF32, {3});
  m.node("PRelu", {"x", "slope"}, {"y"});
  m.output("y", kF32);
  std::string diagnostics;
  EXPECT_TRUE(m.import(diagnostics).empty());
  EXPECT_NE(diagnostics.find("'slope' shape [3] not broadcastable to input "
                             "shape [2, 3, 4]"),
            std::string::npos)
      << diagnostics;
}

TEST(OnnxConverters, InstanceNormalizationReducesSpatialDims) {
  Model m(6);
  m.input("x", kF32, {2, 3, 4, 5});
  m.input("scale", kF32, {3});
  m.input("bias", kF32, {3});
  setFloat(m.node("InstanceNormalization", {"x", "scale", "bias"}, {"y"}),
           "epsilon", 1e-3f);
  m.output("y", kF32);
  std::string diagnostics;
  std::string ir = m.import(diagnostics);
  ASSERT_FALSE(ir.empty()) << diagnostics;
  EXPECT_EQ(count(ir, "graph.reduce_mean"), 2) << ir;
  EXPECT_EQ(count(ir, "axes = [2, 3]"), 2) << ir;
  EXPECT_EQ(count(ir, "-> tensor<3x1x1xf32>"), 2) << ir;
}

TEST(OnnxConverters, ThresholdedReluNeedsOpset10) {
  Model m(9);
  m.input("x", kF32, {4});
  m.node("ThresholdedRelu", {"x"}, {"y"});
  m.output("y", kF32);
  std::string diagnostics;
  EXPECT_TRUE(m.import(diagnostics).empty());
  EXPECT_NE(diagnostics.find("in ThresholdedRelu node"), std::string::npos)
      << diagnostics;
}

} // namespace
