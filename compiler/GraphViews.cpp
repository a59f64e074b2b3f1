//===- GraphViews.cpp - renderings of an exported graph -------------------===//
//
// The GraphDef is encoded by hand (the fields TensorBoard reads of
// tensorflow/core/framework/{graph,node_def,attr_value,tensor_shape}.proto):
//   GraphDef: node 1 (NodeDef)
//   NodeDef: name 1, op 2, input 3 (repeated), attr 5 (map<string, AttrValue>)
//   AttrValue: list 1 (ListValue), type 6 (DataType), shape 7
//   ListValue: shape 7 (repeated TensorShapeProto)
//   TensorShapeProto: dim 2 (Dim: size 1), unknown_rank 3
//
//===----------------------------------------------------------------------===//

#include "compiler/GraphViews.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace tfcc {
namespace {

//===----------------------------------------------------------------------===//
// GraphDef
//===----------------------------------------------------------------------===//

/// Appends protobuf fields to a byte string.
class ProtoWriter {
public:
  void varint(uint64_t v) {
    do {
      uint8_t byte = v & 0x7f;
      v >>= 7;
      bytes_.push_back(char(v ? byte | 0x80 : byte));
    } while (v);
  }
  void key(unsigned field, unsigned wireType) {
    varint((uint64_t(field) << 3) | wireType);
  }
  void integer(unsigned field, int64_t v) {
    key(field, 0);
    varint(uint64_t(v));
  }
  void bytes(unsigned field, const std::string &text) {
    key(field, 2);
    varint(text.size());
    bytes_ += text;
  }
  void message(unsigned field, const ProtoWriter &m) { bytes(field, m.bytes_); }
  const std::string &str() const { return bytes_; }

private:
  std::string bytes_;
};

ProtoWriter shapeProto(const ExportedType &type) {
  ProtoWriter shape;
  if (!type.ranked)
    shape.integer(3, 1); // unknown_rank
  for (int64_t d : type.dims) {
    ProtoWriter dim;
    dim.integer(1, d);
    shape.message(2, dim);
  }
  return shape;
}

/// A map<string, AttrValue> entry of NodeDef.attr.
void attr(ProtoWriter &node, const std::string &key, const ProtoWriter &value) {
  ProtoWriter entry;
  entry.bytes(1, key);
  entry.message(2, value);
  node.message(5, entry);
}

//===----------------------------------------------------------------------===//
// Text
//===----------------------------------------------------------------------===//

std::string escaped(const std::string &text, bool html) {
  std::string out;
  for (char c : text) {
    if (html && c == '<')
      out += "&lt;";
    else if (html && c == '>')
      out += "&gt;";
    else if (html && c == '&')
      out += "&amp;";
    else if (c == '"')
      out += html ? "&quot;" : "\\\"";
    else if (!html && c == '\\')
      out += "\\\\";
    else
      out += c;
  }
  return out;
}

/// The node and result index a node input names ("conv1", "split:1").
std::pair<std::string, size_t> producerOf(const std::string &input) {
  size_t colon = input.rfind(':');
  if (colon == std::string::npos || colon + 1 == input.size() ||
      input.find_first_not_of("0123456789", colon + 1) != std::string::npos)
    return {input, 0};
  return {input.substr(0, colon), std::stoul(input.substr(colon + 1))};
}

/// The type of the value a node input names.
const ExportedType *producedType(const ExportedScope &scope,
                                 const std::string &input) {
  auto [node, index] = producerOf(input);
  for (const ExportedNode &n : scope.nodes)
    if (n.name == node)
      return index < n.outputs.size() ? &n.outputs[index] : nullptr;
  return nullptr;
}

bool isFused(const ExportedNode &node) {
  return node.names.size() > 1 || node.op.rfind("fused_", 0) == 0;
}

/// The lines of a node's box: its name(s), then its op.
std::vector<std::string> labelLines(const ExportedNode &node) {
  std::vector<std::string> lines;
  if (node.names.size() > 1)
    lines = node.names;
  else
    lines.push_back(node.name);
  lines.push_back(node.op);
  lines.insert(lines.end(), node.arena.begin(), node.arena.end());
  return lines;
}

} // namespace

std::string typeText(const ExportedType &type) {
  std::string text = type.dtype;
  if (!type.ranked)
    return text + "[*]";
  text += "[";
  for (size_t i = 0; i < type.dims.size(); ++i)
    text += (i ? ", " : "") + (type.dims[i] < 0 ? std::string("?")
                                                : std::to_string(type.dims[i]));
  return text + "]";
}

std::string graphDefOf(const std::vector<ExportedScope> &scopes) {
  ProtoWriter graph;
  for (const ExportedScope &scope : scopes)
    for (const ExportedNode &node : scope.nodes) {
      std::string prefix = scope.name + "/";
      ProtoWriter def;
      def.bytes(1, prefix + node.name);
      def.bytes(2, node.op);
      for (const std::string &input : node.inputs)
        def.bytes(3, prefix + input);
      if (!node.outputs.empty()) {
        ProtoWriter type;
        type.integer(6, node.outputs.front().dataType);
        attr(def, node.op == "Placeholder" ? "dtype" : "T", type);
        if (node.op == "Placeholder") {
          ProtoWriter shape;
          shape.message(7, shapeProto(node.outputs.front()));
          attr(def, "shape", shape);
        }
        ProtoWriter shapes, list;
        for (const ExportedType &t : node.outputs)
          shapes.message(7, shapeProto(t));
        list.message(1, shapes);
        attr(def, "_output_shapes", list);
      }
      graph.message(1, def);
    }
  return graph.str();
}

std::string dotOf(const std::vector<ExportedScope> &scopes,
                  const std::string &modelName) {
  std::string dot = "digraph \"" + escaped(modelName, false) + "\" {\n" +
                    "  rankdir=TB;\n  node [shape=box, fontname=\"Helvetica\", "
                    "fontsize=11];\n  edge [fontname=\"Helvetica\", "
                    "fontsize=9];\n";
  for (const ExportedScope &scope : scopes) {
    std::string prefix = scope.name + "/";
    dot += "  subgraph \"cluster_" + escaped(scope.name, false) +
           "\" {\n    label=\"" + escaped(scope.name, false) + "\";\n";
    for (const ExportedNode &node : scope.nodes) {
      std::string label;
      for (const std::string &line : labelLines(node))
        label += (label.empty() ? "" : "\\n") + escaped(line, false);
      std::string style = node.op == "Placeholder" || node.op == "Identity"
                              ? ", shape=ellipse"
                          : isFused(node) ? ", peripheries=2, style=rounded"
                                          : "";
      dot += "    \"" + escaped(prefix + node.name, false) + "\" [label=\"" +
             label + "\"" + style + "];\n";
    }
    dot += "  }\n";
    for (const ExportedNode &node : scope.nodes)
      for (const std::string &input : node.inputs) {
        std::string from = producerOf(input).first;
        const ExportedType *type = producedType(scope, input);
        dot += "  \"" + escaped(prefix + from, false) + "\" -> \"" +
               escaped(prefix + node.name, false) + "\"" +
               (type ? " [label=\"" + escaped(typeText(*type), false) + "\"]"
                     : std::string()) +
               ";\n";
      }
  }
  return dot + "}\n";
}

std::string htmlOf(const std::vector<ExportedScope> &scopes,
                   const std::string &modelName) {
  // Layered layout per scope: a node's row is one below its lowest input's;
  // a node without inputs (an argument, a variable's read, a constant) sits
  // just above its first consumer. Scopes side by side.
  const int kCharWidth = 7, kLineHeight = 14, kRowGap = 56, kColumnGap = 24,
            kScopeGap = 60, kMargin = 20;
  struct Box {
    int x = 0, y = 0, width = 0, height = 0, row = 0;
  };
  std::string body;
  int scopeX = kMargin, totalHeight = 0;
  for (const ExportedScope &scope : scopes) {
    std::map<std::string, size_t> index;
    for (size_t i = 0; i < scope.nodes.size(); ++i)
      index[scope.nodes[i].name] = i;
    auto producer = [&](const std::string &input) -> long {
      auto it = index.find(producerOf(input).first);
      return it == index.end() ? -1 : long(it->second);
    };
    std::vector<Box> boxes(scope.nodes.size());
    for (size_t i = 0; i < scope.nodes.size(); ++i)
      for (const std::string &input : scope.nodes[i].inputs)
        if (long p = producer(input); p >= 0)
          boxes[i].row = std::max(boxes[i].row, boxes[p].row + 1);
    for (size_t i = 0; i < scope.nodes.size(); ++i) {
      if (!scope.nodes[i].inputs.empty())
        continue;
      int first = -1;
      for (size_t j = i + 1; j < scope.nodes.size() && first < 0; ++j)
        for (const std::string &input : scope.nodes[j].inputs)
          if (producer(input) == long(i))
            first = boxes[j].row;
      if (first > 0)
        boxes[i].row = first - 1;
    }
    int rows = 0;
    for (Box &box : boxes)
      rows = std::max(rows, box.row + 1);
    std::vector<int> rowWidth(rows, 0);
    int rowHeight = 0;
    for (size_t i = 0; i < scope.nodes.size(); ++i) {
      std::vector<std::string> lines = labelLines(scope.nodes[i]);
      size_t chars = 0;
      for (const std::string &line : lines)
        chars = std::max(chars, line.size());
      boxes[i].width = int(chars) * kCharWidth + 16;
      boxes[i].height = int(lines.size()) * kLineHeight + 10;
      rowHeight = std::max(rowHeight, boxes[i].height);
      boxes[i].x = rowWidth[boxes[i].row];
      rowWidth[boxes[i].row] += boxes[i].width + kColumnGap;
    }
    int scopeWidth = 0;
    for (int w : rowWidth)
      scopeWidth = std::max(scopeWidth, w);
    scopeWidth = std::max(scopeWidth, int(scope.name.size()) * 9);
    int top = kMargin + 30;
    for (Box &box : boxes) {
      // Each row centered in the scope's width.
      box.x += scopeX + (scopeWidth - rowWidth[box.row]) / 2;
      box.y = top + box.row * (rowHeight + kRowGap);
    }
    body += "<g class=\"scope\" data-entry=\"" + escaped(scope.name, true) +
            "\"><text class=\"scope-name\" x=\"" + std::to_string(scopeX) +
            "\" y=\"" + std::to_string(kMargin + 12) + "\">" +
            escaped(scope.name, true) + "</text>\n";
    for (size_t i = 0; i < scope.nodes.size(); ++i)
      for (const std::string &input : scope.nodes[i].inputs) {
        long p = producer(input);
        if (p < 0)
          continue;
        const Box &a = boxes[p], &b = boxes[i];
        int x1 = a.x + a.width / 2, y1 = a.y + a.height, x2 = b.x + b.width / 2,
            y2 = b.y;
        const ExportedType *type = producedType(scope, input);
        body += "<line class=\"edge\" x1=\"" + std::to_string(x1) + "\" y1=\"" +
                std::to_string(y1) + "\" x2=\"" + std::to_string(x2) +
                "\" y2=\"" + std::to_string(y2) +
                "\" marker-end=\"url(#arrow)\"/>";
        if (type)
          body += "<text class=\"shape\" x=\"" +
                  std::to_string((x1 + x2) / 2 + 4) + "\" y=\"" +
                  std::to_string((y1 + y2) / 2 + 3) + "\">" +
                  escaped(typeText(*type), true) + "</text>";
        body += "\n";
      }
    for (size_t i = 0; i < scope.nodes.size(); ++i) {
      const ExportedNode &node = scope.nodes[i];
      const Box &box = boxes[i];
      std::string kind = node.op == "Placeholder" || node.op == "Identity"
                             ? "io"
                         : isFused(node) ? "fused"
                                         : "op";
      body += "<g class=\"node " + kind + "\" data-name=\"" +
              escaped(scope.name + "/" + node.name, true) + "\"><title>" +
              escaped(scope.name + "/" + node.name, true) + " (" +
              escaped(node.op, true) + ")</title><rect x=\"" +
              std::to_string(box.x) + "\" y=\"" + std::to_string(box.y) +
              "\" width=\"" + std::to_string(box.width) + "\" height=\"" +
              std::to_string(box.height) + "\" rx=\"5\"/>";
      std::vector<std::string> lines = labelLines(node);
      for (size_t l = 0; l < lines.size(); ++l)
        body += "<text class=\"" +
                std::string(l + 1 == lines.size() ? "op" : "name") + "\" x=\"" +
                std::to_string(box.x + 8) + "\" y=\"" +
                std::to_string(box.y + 17 + int(l) * kLineHeight) + "\">" +
                escaped(lines[l], true) + "</text>";
      body += "</g>\n";
    }
    body += "</g>\n";
    scopeX += scopeWidth + kScopeGap;
    totalHeight =
        std::max(totalHeight, top + rows * (rowHeight + kRowGap) + kMargin);
  }
  std::string title = escaped(modelName, true);
  return "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" +
         title +
         " — tfcc graph</title>\n<style>\n"
         "body { font-family: Helvetica, Arial, sans-serif; margin: 16px; }\n"
         ".node rect { fill: #eef3fb; stroke: #41628f; stroke-width: 1.2; }\n"
         ".node.fused rect { fill: #fdf2df; stroke: #a8651b; stroke-width: 3; "
         "}\n"
         ".node.io rect { fill: #e9f5e9; stroke: #3d7a3d; }\n"
         ".node text.name { font-size: 12px; font-weight: bold; }\n"
         ".node text.op { font-size: 11px; fill: #555; }\n"
         ".edge { stroke: #888; stroke-width: 1.2; }\n"
         ".shape { font-size: 9px; fill: #666; }\n"
         ".scope-name { font-size: 15px; font-weight: bold; }\n"
         "</style></head>\n<body>\n<h1>" +
         title +
         "</h1>\n<p>The graph after tfcc's graph-level passes: a column per "
         "entry point; fused ops (thick border) list the nodes they absorbed; "
         "edges carry dtype and shape (? = dynamic).</p>\n<svg "
         "xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
         std::to_string(scopeX) + "\" height=\"" + std::to_string(totalHeight) +
         "\">\n<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" "
         "refY=\"5\" markerWidth=\"6\" markerHeight=\"6\" "
         "orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" "
         "fill=\"#888\"/></marker></defs>\n" +
         body + "</svg>\n</body></html>\n";
}

} // namespace tfcc
