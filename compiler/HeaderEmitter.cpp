//===- HeaderEmitter.cpp - The C header of a compiled model ---------------===//
//
// The text is a deterministic function of the signature: no dates, paths or
// hash-map orders. Any change to the layout shows up in
// test/unit/golden/header_emitter_golden.h.
//
//===----------------------------------------------------------------------===//

#include "compiler/HeaderEmitter.h"

#include "runtime/include/tfcc/tfcc_kernels.h" // TFCC_RT_KERNEL_STACK_BYTES
#include "runtime/include/tfcc/tfcc_types.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace tfcc {
namespace {

constexpr uint64_t kArenaAlignment = TFCC_ARENA_ALIGNMENT;

// Arena lines are compared in 128 bits so that fixed + perBatch * batch cannot
// overflow.
__extension__ typedef unsigned __int128 Wide;

// Identifiers a parameter must not be called: C99 and C++ keywords, macros a
// user's translation unit commonly has, and the fixed parameters of every entry
// function.
const std::set<std::string> &reservedParameterNames() {
  static const std::set<std::string> names = {
      // C99
      "auto", "break", "case", "char", "const", "continue", "default", "do",
      "double", "else", "enum", "extern", "float", "for", "goto", "if",
      "inline", "int", "long", "register", "restrict", "return", "short",
      "signed", "sizeof", "static", "struct", "switch", "typedef", "union",
      "unsigned", "void", "volatile", "while",
      // C++ (and C's <stdbool.h>/<iso646.h> macros)
      "alignas", "alignof", "and", "and_eq", "asm", "bitand", "bitor", "bool",
      "catch", "char16_t", "char32_t", "char8_t", "class", "co_await",
      "co_return", "co_yield", "compl", "concept", "consteval", "constexpr",
      "constinit", "const_cast", "decltype", "delete", "dynamic_cast",
      "explicit", "export", "false", "friend", "mutable", "namespace", "new",
      "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq",
      "private", "protected", "public", "reinterpret_cast", "requires",
      "static_assert", "static_cast", "template", "this", "thread_local",
      "throw", "true", "try", "typeid", "typename", "using", "virtual",
      "wchar_t", "xor", "xor_eq",
      // common macros
      "NULL", "EOF", "errno", "assert", "offsetof", "stdin", "stdout", "stderr",
      // fixed parameters
      "ctx", "batch", "dims"};
  return names;
}

// Replaces characters outside [A-Za-z0-9_] by '_' and collapses runs of '_'.
std::string cleanIdentifier(const std::string &name) {
  std::string out;
  for (char c : name) {
    unsigned char u = static_cast<unsigned char>(c);
    char d = (std::isalnum(u) && u < 128) ? c : '_';
    if (d == '_' && !out.empty() && out.back() == '_')
      continue;
    out.push_back(d);
  }
  return out;
}

std::string toUpper(std::string s) {
  for (char &c : s)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string toLower(std::string s) {
  for (char &c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Returns `base`, or `base` + "_2", "_3", ... : the first whose key
// (upper-cased when `caseInsensitive`) is not in `used`; records the key.
std::string makeUnique(const std::string &base, std::set<std::string> &used,
                       bool caseInsensitive) {
  auto key = [&](const std::string &s) {
    return caseInsensitive ? toUpper(s) : s;
  };
  std::string candidate = base;
  for (int n = 2; used.count(key(candidate)); ++n)
    candidate = base + "_" + std::to_string(n);
  used.insert(key(candidate));
  return candidate;
}

// Makes user text safe inside a /* */ comment: printable ASCII only, no "*/",
// no "??" (trigraphs under -std=c99).
std::string commentSafe(const std::string &text) {
  std::string out;
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    char d = (u >= 0x20 && u < 0x7f) ? c : '?';
    if ((d == '/' && !out.empty() && out.back() == '*') ||
        (d == '?' && !out.empty() && out.back() == '?'))
      out.push_back('_');
    out.push_back(d);
  }
  return out;
}

uint64_t roundUp(uint64_t n) {
  return (n + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
}

std::string ull(uint64_t n) { return std::to_string(n) + "ULL"; }

// Whether an argument of `entry` has named dimension k.
bool entryUsesDim(const EntrySignature &entry, size_t k) {
  return entry.anyDim([k](int64_t dim) { return dim == namedDim(k); });
}

// "batch", a named dimension's name (comment-safe), or the size.
std::string dimText(const ModelSignature &sig, int64_t dim) {
  if (dim >= 0)
    return std::to_string(dim);
  size_t k = namedDimIndex(dim);
  if (k == 0 || k > sig.dims.size())
    return "batch";
  return commentSafe(sig.dims[k - 1].name);
}

// "[batch, 28, 28, 1]", "[batch, 3, 48, W]"; "[]" for a scalar.
std::string shapeText(const ModelSignature &sig, const ArgSignature &arg) {
  std::string s = "[";
  for (size_t i = 0; i < arg.dims.size(); ++i) {
    if (i)
      s += ", ";
    s += dimText(sig, arg.dims[i]);
  }
  return s + "]";
}

// "3136 * batch bytes", "40 bytes", "576 * batch * W bytes".
std::string bytesText(const ModelSignature &sig, const ArgSignature &arg) {
  uint64_t bytes = byteSize(arg.dtype);
  std::string s;
  for (int64_t dim : arg.dims) {
    if (dim < 0)
      s += " * " + dimText(sig, dim);
    else
      bytes *= static_cast<uint64_t>(dim);
  }
  return std::to_string(bytes) + s + " bytes";
}

// "4096 + 3136 * batch bytes" or "128 bytes" (before rounding).
std::string arenaText(const EntrySignature &entry) {
  if (!entry.hasDynamicBatch())
    return std::to_string(roundUp(entry.arenaBytesFixed)) + " bytes";
  return std::to_string(entry.arenaBytesFixed) + " + " +
         std::to_string(entry.arenaBytesPerBatch) +
         " * batch bytes, rounded up to 64";
}

// The right-hand side of <PREFIX>_<ENTRY>_ARENA_BYTES(batch).
std::string entryArenaExpr(const EntrySignature &entry) {
  if (!entry.hasDynamicBatch())
    return "(" + ull(roundUp(entry.arenaBytesFixed)) + ")";
  return "((" + ull(entry.arenaBytesFixed) + " + " +
         ull(entry.arenaBytesPerBatch) +
         " * (uint64_t)(batch) + 63ULL) & ~63ULL)";
}

// The right-hand side of <PREFIX>_ARENA_BYTES(max_batch): 64 + the largest
// entry macro at max_batch. The largest of the lines fixed_i + perBatch_i * b
// is chosen at emission time (the upper envelope over b >= 1), so the text
// stays linear in the number of entries and remains an integer constant
// expression; rounding up is monotone, so the entry with the largest line also
// has the largest rounded size.
std::string modelArenaExpr(const ModelSignature &sig, const CNames &names) {
  struct Line {
    Wide fixed, perBatch;
    size_t index;
    Wide at(uint64_t b) const { return fixed + perBatch * b; }
  };
  std::vector<Line> lines;
  for (size_t i = 0; i < sig.entries.size(); ++i) {
    const EntrySignature &entry = sig.entries[i];
    bool dynamic = entry.hasDynamicBatch();
    lines.push_back(
        {dynamic ? entry.arenaBytesFixed : roundUp(entry.arenaBytesFixed),
         dynamic ? entry.arenaBytesPerBatch : 0, i});
  }
  if (lines.empty())
    return "(64ULL)";

  // Picks the largest line at b, ties to the steeper, then the earlier one.
  auto best = [&](const std::vector<const Line *> &candidates, uint64_t b) {
    const Line *pick = nullptr;
    for (const Line *line : candidates)
      if (!pick || line->at(b) > pick->at(b) ||
          (line->at(b) == pick->at(b) && line->perBatch > pick->perBatch))
        pick = line;
    return pick;
  };
  std::vector<const Line *> all;
  for (const Line &line : lines)
    all.push_back(&line);

  // Segments (start, line): `line` is the largest for start <= b < next start.
  std::vector<std::pair<uint64_t, const Line *>> segments;
  uint64_t start = 1;
  const Line *current = best(all, start);
  segments.push_back({start, current});
  for (;;) {
    // The first b > start where a steeper line overtakes `current`.
    Wide next = 0;
    std::vector<const Line *> overtaking;
    for (const Line *line : all) {
      // A steeper line that is not above `current` at `start` crosses it later.
      if (line->perBatch <= current->perBatch || line->fixed > current->fixed)
        continue;
      Wide cross = (current->fixed - line->fixed) /
                       (line->perBatch - current->perBatch) +
                   1;
      if (overtaking.empty() || cross < next) {
        next = cross;
        overtaking.clear();
      }
      if (cross == next)
        overtaking.push_back(line);
    }
    if (overtaking.empty() || next > UINT64_MAX)
      break;
    start = static_cast<uint64_t>(next);
    current = best(overtaking, start);
    segments.push_back({start, current});
  }

  // One line per segment, from the largest batches down.
  std::string expr = "(64ULL + ( \\\n";
  for (size_t i = segments.size(); i-- > 1;)
    expr += "    (max_batch) >= " + std::to_string(segments[i].first) + " ? " +
            names.entries[segments[i].second->index].macro +
            "_ARENA_BYTES(max_batch) : \\\n";
  expr += "    " + names.entries[segments[0].second->index].macro +
          "_ARENA_BYTES(max_batch)))";
  return expr;
}

// "tfcc_status_t name(a, b, c);", wrapped at 90 columns with continuation lines
// aligned after the '(' (or indented by 4 when the name is long).
std::string prototype(const std::string &head,
                      const std::vector<std::string> &params) {
  constexpr size_t kWidth = 90;
  bool aligned = head.size() + 1 <= 40;
  std::string indent(aligned ? head.size() + 1 : 4, ' ');
  std::string text, line = head + "(";
  if (!aligned) {
    text = line + "\n";
    line = indent;
  }
  for (size_t i = 0; i < params.size(); ++i) {
    std::string piece = params[i] + (i + 1 < params.size() ? "," : ");");
    bool lineEmpty = line.size() == indent.size() || line.back() == '(';
    if (!lineEmpty && line.size() + 1 + piece.size() > kWidth) {
      text += line + "\n";
      line = indent;
      lineEmpty = true;
    }
    line += (lineEmpty ? "" : " ") + piece;
  }
  if (params.empty())
    line += ");";
  return text + line + "\n";
}

void emitArgList(std::string &out, const ModelSignature &sig,
                 const std::vector<ArgSignature> &args,
                 const std::vector<std::string> &params) {
  if (args.empty()) {
    out += " *   none\n";
    return;
  }
  for (size_t i = 0; i < args.size(); ++i) {
    out += " *   " + params[i];
    if (params[i] != args[i].name)
      out += " ('" + commentSafe(args[i].name) + "')";
    out += ": " + std::string(dtypeName(args[i].dtype)) + " " +
           shapeText(sig, args[i]) + ", " + bytesText(sig, args[i]) + "\n";
  }
}

void emitEntry(std::string &out, const ModelSignature &sig, const CNames &names,
               size_t index) {
  const EntrySignature &entry = sig.entries[index];
  const CNames::Entry &cEntry = names.entries[index];
  bool dynamic = entry.hasDynamicBatch();

  out += "/*\n";
  out += " * Runs entry '" + commentSafe(entry.name) + "' of model '" +
         commentSafe(sig.modelName) + "'.\n";
  out += " *\n";
  out += " * Inputs (read only; dense, row-major; owned by the caller):\n";
  emitArgList(out, sig, entry.inputs, cEntry.inputs);
  out += " * Outputs (written by the call; dense, row-major; owned by the "
         "caller):\n";
  emitArgList(out, sig, entry.outputs, cEntry.outputs);
  out += " *\n";
  bool named = entry.hasNamedDims();
  if (named) {
    out += " * dims: the values of the model's " + names.macroPrefix +
           "_NUM_DIMS dimensions:\n *   dims[0] = the batch";
    out += dynamic ? " (1 <= batch <= the context's max_batch)" : " (unused)";
    for (size_t k = 0; k < sig.dims.size(); ++k) {
      if (!entryUsesDim(entry, k + 1))
        continue;
      out += ",\n *   dims[" + names.dimMacros[k] + "] = " +
             commentSafe(sig.dims[k].name);
      out += sig.dims[k].derived
                 ? " (derived: " + names.prefix + "_resolve_dims sets it; <= " +
                       names.dimMacros[k] + "_MAX)"
                 : " (1 <= " + commentSafe(sig.dims[k].name) + " <= " +
                       names.dimMacros[k] + "_MAX)";
    }
    out += ".\n";
  } else if (dynamic) {
    out += " * batch: the size of every dynamic dimension, 1 <= batch <= the "
           "context's "
           "max_batch.\n";
  } else {
    out += " * batch: ignored (every shape is static).\n";
  }
  out += " * Arena: " + cEntry.macro +
         "_ARENA_BYTES(batch) = " + arenaText(entry) + ".\n";
  if (entry.arenaNaiveFixed != entry.arenaBytesFixed ||
      entry.arenaNaivePerBatch != entry.arenaBytesPerBatch)
    if (entry.arenaNaiveFixed || entry.arenaNaivePerBatch) {
      // The memory plan lets buffers with disjoint lifetimes share space.
      std::string naive = std::to_string(entry.arenaNaiveFixed);
      if (dynamic)
        naive += " + " + std::to_string(entry.arenaNaivePerBatch) + " * batch";
      out += " * (Without reuse of space between buffers: " + naive +
             " bytes.)\n";
    }
  out += " * Returns TFCC_OK, or, with ctx->message saying why:\n";
  out += " *   TFCC_INVALID_ARGUMENT   ctx, an input or an output is NULL, or "
         "ctx was\n"
         " *                           initialized for another model";
  bool derivedOutputs = false;
  for (size_t k = 0; k < sig.dims.size(); ++k)
    derivedOutputs |= sig.dims[k].derived && entryUsesDim(entry, k + 1);
  out += derivedOutputs ? ", or a derived\n"
                          " *                           dimension is not what "
                          "the inputs make it;\n"
                        : ";\n";
  if (named)
    out += " *   TFCC_OUT_OF_RANGE       a dimension the entry uses is below 1 "
           "or above its\n"
           " *                           bound (the batch: the context's "
           "max_batch);\n";
  else if (dynamic)
    out += " *   TFCC_OUT_OF_RANGE       batch < 1 or batch > the context's "
           "max_batch;\n";
  out += " *   TFCC_RESOURCE_EXHAUSTED the context's arena is too small.\n";
  out += " */\n";

  std::vector<std::string> params = {
      "tfcc_context* ctx", named ? "const int64_t* dims" : "int64_t batch"};
  for (size_t i = 0; i < entry.inputs.size(); ++i)
    params.push_back("const " + std::string(cTypeName(entry.inputs[i].dtype)) +
                     "* " + cEntry.inputs[i]);
  for (size_t i = 0; i < entry.outputs.size(); ++i)
    params.push_back(std::string(cTypeName(entry.outputs[i].dtype)) + "* " +
                     cEntry.outputs[i]);
  out += prototype("tfcc_status_t " + cEntry.function, params);
  out += "\n";
}

// The model-level functions. Their comments are the header's documentation of
// the runtime behind them (runtime/src/runtime.c).
const std::vector<ModelFunction> kModelFunctions = {
    {"info", "const tfcc_model_info*", "void", nullptr, false, false,
     R"(/* Returns the model's reflective table: names, dtypes and shapes of every entry,
 * for generic tools. Static storage owned by the model; never NULL. */)",
     true},
    {"init", "tfcc_status_t",
     "tfcc_context* ctx, void* arena, uint64_t arena_bytes, int64_t max_batch",
     "tfcc_rt_context_init", true, false,
     R"(/* Initializes the caller-owned `ctx` with the caller-owned `arena` of `arena_bytes`
 * bytes (any alignment) for calls with batch <= max_batch. Never mallocs; `ctx` and
 * `arena` must stay valid while the context is used. Returns TFCC_OK, or, with
 * ctx->message saying why:
 *   TFCC_INVALID_ARGUMENT    ctx is NULL, or arena is NULL but needed;
 *   TFCC_OUT_OF_RANGE        max_batch < 1;
 *   TFCC_RESOURCE_EXHAUSTED  arena_bytes < $P_ARENA_BYTES(max_batch) - 64 plus the
 *                            0-63 bytes that align `arena` to 64 (so the macro
 *                            always suffices, 64 fewer when aligned);
 *   TFCC_FAILED_PRECONDITION the model and its runtime disagree on the ABI. */)",
     true},
    {"create", "tfcc_status_t", "int64_t max_batch, tfcc_context** out_ctx",
     "tfcc_rt_context_create", true, false,
     R"(/* Allocates a context and its arena for batches up to max_batch with malloc.
 * *out_ctx is set to NULL first; on TFCC_OK the caller owns it and frees it with
 * $p_destroy. Returns TFCC_INVALID_ARGUMENT (out_ctx NULL),
 * TFCC_OUT_OF_RANGE (max_batch < 1) or TFCC_RESOURCE_EXHAUSTED (out of memory). */)",
     true},
    {"create_with_threads", "tfcc_status_t",
     "int64_t max_batch, int32_t num_threads, tfcc_context** out_ctx",
     "tfcc_rt_context_create_with_threads", true, false,
     R"(/* $p_create for calls that run on num_threads threads: the calling thread plus
 * num_threads - 1 workers of a thread pool the context owns (created here, never per
 * call; they spin briefly after each parallel loop, then sleep). num_threads 1
 * creates no thread. Any thread calling the model needs $stack_kib KiB of free stack.
 * Returns what $p_create returns, and TFCC_INVALID_ARGUMENT (num_threads < 1)
 * or TFCC_RESOURCE_EXHAUSTED (the pool's threads could not be created). */)",
     true},
    {"destroy", "void", "tfcc_context* ctx", "tfcc_rt_context_destroy", false,
     false,
     R"(/* Frees a context from $p_create or $p_create_with_threads (joining
 * its threads). NULL-safe; a context from $p_init is left alone (its memory is
 * the caller's). Call it once per context: like free(), a second call on
 * the same pointer is undefined. */)",
     true},
    {"status_string", "const char*", "tfcc_status_t status",
     "tfcc_rt_status_string", false, false,
     R"(/* Returns a short static name of `status` ("ok", "invalid argument", ...). */)",
     true},
    {"kernels_isa", "const char*", "void", "tfcc_rt_kernels_isa", false, false,
     R"(/* The instruction-set level of the kernels this process runs: "avx512", "avx2" or
 * "generic" (SSE2 on x86-64, NEON on AArch64); TFCC_KERNELS_ISA=generic|avx2
 * lowers it. */)",
     true},
    {"invoke", "tfcc_status_t",
     "int32_t entry_index, tfcc_context* ctx, int64_t batch, "
     "const void* const* inputs, void* const* outputs",
     "tfcc_rt_invoke", true, false,
     R"(/* Generic form of the entry functions below, for tools that drive any model
 * through the table of $p_info(): runs entry `entry_index` with
 * `inputs`/`outputs` in argument order. Same checks and statuses. An entry with
 * dimensions beyond the batch returns TFCC_INVALID_ARGUMENT: call
 * $p_invoke_dims. */)",
     true},
    {"resolve_dims", "tfcc_status_t",
     "int32_t entry_index, tfcc_context* ctx, int64_t* dims",
     "tfcc_rt_resolve_dims", true, false,
     R"(/* Fills the derived dimensions of entry `entry_index` in dims (output sizes
 * computed from the inputs', e.g. a convolution's output width; marked "derived"
 * below) from dims[0] and the named dimensions the caller set, so that it can size
 * the outputs. Checks the given dimensions as the entry does (TFCC_OUT_OF_RANGE),
 * and TFCC_OUT_OF_RANGE when the inputs are too small for an output. */)",
     true},
    {"invoke_dims", "tfcc_status_t",
     "int32_t entry_index, tfcc_context* ctx, const int64_t* dims, "
     "const void* const* inputs, void* const* outputs",
     "tfcc_rt_invoke_dims", true, false,
     R"(/* $p_invoke for any entry, with the values of the model's dimensions: dims[0]
 * the batch, dims[k] named dimension k (tfcc_model_info.dim_names[k - 1],
 * 1 <= dims[k] <= dim_bounds[k - 1]); only those the entry uses are read (dims may
 * be NULL for a static entry). TFCC_OUT_OF_RANGE names a dimension out of range. */)",
     true},
    {"profile_start", "tfcc_status_t", "tfcc_context* ctx",
     "tfcc_rt_profile_start", true, false,
     R"(/* Profiling (docs/profiling.md): after $p_profile_start, every call on `ctx`
 * records one span for the call and one per kernel or fused loop nest, named by
 * the model's node names; $p_profile_stop writes them to `path` as a Chrome trace
 * (JSON for chrome://tracing and Perfetto; NULL discards them) and stops. Recording
 * mallocs. TFCC_FAILED_PRECONDITION: stop without start, or a bare-metal build;
 * TFCC_INVALID_ARGUMENT: a file that cannot be written (ctx->message says why).
 * With the environment variable TFCC_PROFILE=FILE, a context from $p_create
 * profiles from the start and writes FILE when destroyed. */)",
     false},
    {"profile_stop", "tfcc_status_t", "tfcc_context* ctx, const char* path",
     "tfcc_rt_profile_stop", true, false, nullptr, true},
    {"get_variable", "tfcc_status_t",
     "tfcc_context* ctx, const char* name, void* out, uint64_t bytes",
     "tfcc_rt_get_variable", true, true,
     R"(/* The state memory of a context: variables by name (the names of the
 * variable table in $p_info()). `bytes` must equal the variable's size;
 * an unknown name, a NULL pointer or a wrong size returns TFCC_INVALID_ARGUMENT
 * with ctx->message saying why (and the expected size). */)",
     false},
    {"set_variable", "tfcc_status_t",
     "tfcc_context* ctx, const char* name, const void* value, uint64_t bytes",
     "tfcc_rt_set_variable", true, true, nullptr, false},
    {"reset_state", "tfcc_status_t", "tfcc_context* ctx", "tfcc_rt_reset_state",
     true, true,
     R"(/* Every variable, slot and the step counter back to its initial value. */)",
     false},
    {"save_checkpoint", "tfcc_status_t", "tfcc_context* ctx, const char* path",
     "tfcc_rt_save_checkpoint", true, true,
     R"(/* Checkpoints (docs/training.md): save writes every variable, slot and the
 * step counter to a FlatBuffers file (runtime/checkpoint.fbs) via `path`.tmp and
 * a rename; load validates the whole file (model, names, dtypes, shapes, sizes,
 * each variable's CRC-32C) before changing the state: on error the state is
 * unchanged and ctx->message says why. Both malloc one buffer of the file's size. */)",
     false},
    {"load_checkpoint", "tfcc_status_t", "tfcc_context* ctx, const char* path",
     "tfcc_rt_load_checkpoint", true, true, nullptr, true},
};

// `text` with every `from` replaced by `to`.
std::string replaceAll(std::string text, const std::string &from,
                       const std::string &to) {
  for (size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// The header's comment and prototype of each model-level function `sig`
// exports.
void emitModelFunctions(std::string &out, const ModelSignature &sig,
                        const CNames &names) {
  for (const ModelFunction &fn : kModelFunctions) {
    if (fn.statefulOnly && !sig.stateful)
      continue;
    if (fn.doc) {
      std::string doc = replaceAll(fn.doc, "$stack_kib",
                                   std::to_string(TFCC_RT_KERNEL_STACK_BYTES / 1024));
      doc = replaceAll(doc, "$p", names.prefix);
      out += replaceAll(doc, "$P", names.macroPrefix) + "\n";
    }
    std::vector<std::string> params;
    for (const auto &[type, name] : splitCParams(fn.params))
      params.push_back(type + " " + name);
    if (params.empty())
      params.push_back("void");
    out += prototype(std::string(fn.result) + " " + names.prefix + "_" +
                         fn.suffix,
                     params);
    if (fn.blankLineAfter)
      out += "\n";
  }
}

} // namespace

const std::vector<ModelFunction> &modelFunctions() { return kModelFunctions; }

std::vector<std::pair<std::string, std::string>>
splitCParams(const std::string &params) {
  std::vector<std::pair<std::string, std::string>> out;
  if (params.empty() || params == "void")
    return out;
  size_t begin = 0;
  while (begin <= params.size()) {
    size_t end = params.find(',', begin);
    if (end == std::string::npos)
      end = params.size();
    std::string param = params.substr(begin, end - begin);
    param.erase(0, param.find_first_not_of(' '));
    size_t split = param.find_last_of(" *");
    out.emplace_back(param.substr(0, param[split] == '*' ? split + 1 : split),
                     param.substr(split + 1));
    begin = end + 1;
  }
  return out;
}

std::string sanitizeCIdentifier(const std::string &name) {
  std::string id = cleanIdentifier(name);
  if (id.empty())
    return "arg";
  if (id[0] == '_')
    return "arg" + id;
  if (std::isdigit(static_cast<unsigned char>(id[0])))
    return "arg_" + id;
  return id;
}

CNames computeCNames(const ModelSignature &sig) {
  CNames names;
  std::string prefix =
      cleanIdentifier(sig.prefix.empty() ? sig.modelName : sig.prefix);
  while (!prefix.empty() && prefix[0] == '_')
    prefix.erase(0, 1);
  if (!prefix.empty() && prefix.back() == '_')
    prefix.pop_back();
  if (prefix.empty() || std::isdigit(static_cast<unsigned char>(prefix[0])))
    prefix = "model" + std::string(prefix.empty() ? "" : "_") + prefix;
  names.prefix = toLower(prefix);
  names.macroPrefix = toUpper(prefix);
  names.includeGuard = names.macroPrefix + "_TFCC_H_";

  std::set<std::string> usedSuffixes;
  for (const ModelFunction &fn : kModelFunctions)
    if (sig.stateful || !fn.statefulOnly)
      usedSuffixes.insert(toUpper(fn.suffix));
  for (const EntrySignature &entry : sig.entries) {
    CNames::Entry cEntry;
    std::string suffix = cleanIdentifier(entry.name);
    while (!suffix.empty() && suffix[0] == '_')
      suffix.erase(0, 1);
    if (!suffix.empty() && suffix.back() == '_')
      suffix.pop_back();
    if (suffix.empty())
      suffix = "entry";
    suffix = makeUnique(suffix, usedSuffixes, /*caseInsensitive=*/true);
    cEntry.function = names.prefix + "_" + suffix;
    cEntry.macro = names.macroPrefix + "_" + toUpper(suffix);

    std::set<std::string> usedParams;
    auto paramName = [&](const ArgSignature &arg) {
      std::string id = sanitizeCIdentifier(arg.name);
      if (reservedParameterNames().count(id))
        id += "_";
      return makeUnique(id, usedParams, /*caseInsensitive=*/false);
    };
    for (const ArgSignature &arg : entry.inputs)
      cEntry.inputs.push_back(paramName(arg));
    for (const ArgSignature &arg : entry.outputs)
      cEntry.outputs.push_back(paramName(arg));
    names.entries.push_back(std::move(cEntry));
  }
  std::set<std::string> usedDimMacros;
  for (const DimSignature &dim : sig.dims)
    names.dimMacros.push_back(makeUnique(
        names.macroPrefix + "_DIM_" + toUpper(sanitizeCIdentifier(dim.name)),
        usedDimMacros, /*caseInsensitive=*/true));
  return names;
}

std::string emitHeader(const ModelSignature &sig,
                       const std::string &typesHeaderText) {
  CNames names = computeCNames(sig);
  const std::string &p = names.prefix;
  const std::string &P = names.macroPrefix;
  std::string model = commentSafe(sig.modelName);
  std::string out;

  // Banner and overview.
  out += "/* Generated by tfcc from model '" + model + "'. Do not edit. */\n";
  out += "/*\n";
  out += " * The C interface of model '" + model + "' (symbol prefix '" + p +
         "').\n";
  out += " * Link with the model's shared library or archive; nothing else is "
         "needed.\n";
  out += " *\n";
  out += " * Memory: " + std::to_string(sig.weightBytes) +
         " bytes of weights live in the model's read-only data.\n";
  out += " * Each context holds one arena, the only scratch memory calls use; "
         "nothing\n";
  out += " * mallocs except " + p + "_create and " + p +
         "_create_with_threads.\n";
  if (sig.cuda)
    out += " *\n"
           " * Built with --target=cuda: the calls run on an NVIDIA GPU "
           "(docs/cuda.md).\n"
           " * The arena (sizes below) is device memory the runtime allocates "
           "when a\n"
           " * context is created and frees in " +
           p +
           "_destroy; an arena given to _init\n"
           " * holds only the state memory of a model with a training step. "
           "Without a\n"
           " * GPU and its driver, _create and _init return"
           " TFCC_UNAVAILABLE\n"
           " * (" +
           p + "_status_string gives the reason).\n";
  if (!sig.entries.empty()) {
    const CNames::Entry &first = names.entries[0];
    std::string args =
        sig.entries[0].hasNamedDims() ? "&ctx, dims" : "&ctx, batch";
    for (const std::string &name : first.inputs)
      args += ", " + name;
    for (const std::string &name : first.outputs)
      args += ", " + name;
    out += " *\n";
    out += " * Use, without malloc (max_batch 8):\n";
    out += " *   static uint8_t arena[" + P + "_ARENA_BYTES(8)];\n";
    out += " *   static tfcc_context ctx;\n";
    out += " *   tfcc_status_t s = " + p +
           "_init(&ctx, arena, sizeof arena, 8);\n";
    out += " *   if (s == TFCC_OK) s = " + first.function + "(" + args + ");\n";
    out += " *   if (s != TFCC_OK) fprintf(stderr, \"%s: %s\\n\", " + p +
           "_status_string(s), ctx.message);\n";
    out += " *\n";
    out += " * Entries (arena bytes per call):\n";
    for (size_t i = 0; i < sig.entries.size(); ++i)
      out += " *   " + names.entries[i].function + ": " +
             arenaText(sig.entries[i]) + "\n";
  }
  out += " */\n";
  out += "#ifndef " + names.includeGuard + "\n";
  out += "#define " + names.includeGuard + "\n\n";

  // The runtime's public types, verbatim.
  out += typesHeaderText;
  if (!typesHeaderText.empty() && typesHeaderText.back() != '\n')
    out += "\n";
  out += "\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";

  // Sizes.
  out += "/* Bytes of weights in the model's read-only data. */\n";
  out += "#define " + P + "_WEIGHT_BYTES " + ull(sig.weightBytes) + "\n\n";
  if (!sig.dims.empty()) {
    out += "/* The model's dimensions: the batch and " +
           std::to_string(sig.dims.size()) +
           " named dimension(s) beyond it.\n"
           " * Entries that use them take `const int64_t dims[" + P +
           "_NUM_DIMS]`: dims[0] the\n"
           " * batch, dims[" + P + "_DIM_<NAME>] each named one, at most " + P +
           "_DIM_<NAME>_MAX\n"
           " * (its bound at compile time: the arena is planned for it). */\n";
    out += "#define " + P + "_NUM_DIMS " + std::to_string(sig.dims.size() + 1) +
           "\n";
    for (size_t k = 0; k < sig.dims.size(); ++k) {
      out += "#define " + names.dimMacros[k] + " " + std::to_string(k + 1) +
             " /* '" + commentSafe(sig.dims[k].name) +
             (sig.dims[k].derived ? "', derived" : "'") + " */\n";
      out += "#define " + names.dimMacros[k] + "_MAX " +
             std::to_string(sig.dims[k].bound) + "\n";
    }
    out += "\n";
  }
  if (!sig.entries.empty()) {
    out += "/* Arena bytes one call of each entry needs at `batch` (fixed + "
           "per_batch *\n"
           " * batch, rounded up to 64; a constant for entries without a "
           "dynamic batch). */\n";
    for (size_t i = 0; i < sig.entries.size(); ++i)
      out += "#define " + names.entries[i].macro + "_ARENA_BYTES(batch) " +
             entryArenaExpr(sig.entries[i]) + "\n";
    out += "\n";
  }
  out += "/* Arena bytes a context for batches up to `max_batch` (>= 1) needs: "
         "the largest\n"
         " * entry's plus 64 to align an arena of any alignment (a 64-byte "
         "aligned arena\n"
         " * needs 64 fewer). An integer constant expression for a constant "
         "max_batch, which\n"
         " * it may evaluate more than once. */\n";
  if (sig.stateful) {
    out += "/* Bytes of the state memory (every variable, optimizer slot and the "
           "step\n"
           " * counter; 64-byte aligned at the start of a context's block, "
           "included in\n"
           " * " + P + "_ARENA_BYTES). */\n";
    out += "#define " + P + "_STATE_BYTES " + ull(sig.stateBytes) + "\n\n";
    out += "#define " + P + "_ARENA_BYTES(max_batch) (" +
           ull(roundUp(sig.stateBytes)) + " + " + modelArenaExpr(sig, names) +
           ")\n\n";
  } else {
    out += "#define " + P + "_ARENA_BYTES(max_batch) " +
           modelArenaExpr(sig, names) + "\n\n";
  }

  // Model-level functions.
  emitModelFunctions(out, sig, names);

  // Entries.
  for (size_t i = 0; i < sig.entries.size(); ++i)
    emitEntry(out, sig, names, i);

  out += "#ifdef __cplusplus\n} /* extern \"C\" */\n#endif\n\n";
  out += "#endif /* " + names.includeGuard + " */\n";
  return out;
}

} // namespace tfcc
