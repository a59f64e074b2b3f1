//===- Npy.cpp - NumPy .npy reading and writing ---------------------------===//
//
// Format:
// https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
// "\x93NUMPY", major, minor, header length (u16 LE for 1.0, u32 LE
// for 2.0/3.0), then a Python dict literal with 'descr', 'fortran_order' and
// 'shape', padded with spaces and a final '\n' so that the data starts at a
// multiple of 64, then the raw data.
//
//===----------------------------------------------------------------------===//

#include "compiler/Npy.h"

#include "compiler/BoundedFile.h"
#include "dialects/graph/IR/Limits.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace tfcc {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
constexpr size_t kAlign = 64;
constexpr size_t kGrowthAxisMaxDigits = 21; // numpy's spare room after the dict

struct DTypeCode {
  DType dtype;
  const char *descr;
};

// The .npy descr of each supported dtype. bf16 has none.
constexpr DTypeCode kDTypeCodes[] = {
    {DType::F32, "<f4"},  {DType::I32, "<i4"}, {DType::I64, "<i8"},
    {DType::BOOL, "|b1"}, {DType::F16, "<f2"}, {DType::I8, "|i1"},
    {DType::F64, "<f8"},  {DType::U8, "|u1"},
};

const char *descrOf(DType dtype) {
  for (const DTypeCode &code : kDTypeCodes)
    if (code.dtype == dtype)
      return code.descr;
  return nullptr;
}

std::string shapeRepr(const std::vector<int64_t> &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1)
    s += ",";
  return s + ")";
}

// A recursive-descent reader of the header dict. Accepts what numpy writes (and
// any order of keys, either quote style, trailing commas, Python 2 'L'
// suffixes).
class HeaderParser {
public:
  explicit HeaderParser(const std::string &text) : text(text) {}

  bool parse(std::string &descr, bool &fortranOrder,
             std::vector<int64_t> &shape, std::string &error) {
    bool haveDescr = false, haveOrder = false, haveShape = false;
    skipSpace();
    if (!consume('{'))
      return fail("expected '{'", error);
    for (;;) {
      skipSpace();
      if (consume('}'))
        break;
      std::string key;
      if (!parseString(key))
        return fail("expected a quoted key", error);
      skipSpace();
      if (!consume(':'))
        return fail("expected ':' after '" + key + "'", error);
      skipSpace();
      if (key == "descr") {
        if (!parseString(descr))
          return fail(
              "'descr' is not a string (structured dtypes are unsupported)",
              error);
        haveDescr = true;
      } else if (key == "fortran_order") {
        if (!parseBool(fortranOrder))
          return fail("'fortran_order' is not True or False", error);
        haveOrder = true;
      } else if (key == "shape") {
        if (!parseShape(shape))
          return fail("'shape' is not a tuple of non-negative integers", error);
        haveShape = true;
      } else {
        return fail("unexpected key '" + key + "'", error);
      }
      skipSpace();
      if (consume(','))
        continue;
      skipSpace();
      if (consume('}'))
        break;
      return fail("expected ',' or '}'", error);
    }
    skipSpace();
    if (pos != text.size())
      return fail("unexpected text after the dict", error);
    if (!haveDescr || !haveOrder || !haveShape)
      return fail(std::string("missing key '") +
                      (!haveDescr   ? "descr"
                       : !haveOrder ? "fortran_order"
                                    : "shape") +
                      "'",
                  error);
    return true;
  }

private:
  bool fail(const std::string &what, std::string &error) {
    error = "malformed header at offset " + std::to_string(pos) + ": " + what;
    return false;
  }
  void skipSpace() {
    while (pos < text.size() &&
           std::isspace(static_cast<unsigned char>(text[pos])))
      ++pos;
  }
  bool consume(char c) {
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  bool consumeWord(const char *word) {
    size_t n = std::strlen(word);
    if (text.compare(pos, n, word) != 0)
      return false;
    pos += n;
    return true;
  }
  bool parseString(std::string &out) {
    if (pos >= text.size() || (text[pos] != '\'' && text[pos] != '"'))
      return false;
    char quote = text[pos++];
    size_t end = text.find(quote, pos);
    if (end == std::string::npos)
      return false;
    out = text.substr(pos, end - pos);
    pos = end + 1;
    return true;
  }
  bool parseBool(bool &out) {
    if (consumeWord("True"))
      return out = true, true;
    if (consumeWord("False"))
      return out = false, true;
    return false;
  }
  bool parseShape(std::vector<int64_t> &shape) {
    shape.clear();
    if (!consume('('))
      return false;
    for (;;) {
      skipSpace();
      if (consume(')'))
        return true;
      if (pos >= text.size() ||
          !std::isdigit(static_cast<unsigned char>(text[pos])))
        return false;
      int64_t dim = 0;
      while (pos < text.size() &&
             std::isdigit(static_cast<unsigned char>(text[pos]))) {
        if (dim > (INT64_MAX - 9) / 10)
          return false;
        dim = dim * 10 + (text[pos++] - '0');
      }
      consume('L');
      shape.push_back(dim);
      skipSpace();
      if (consume(','))
        continue;
      skipSpace();
      return consume(')');
    }
  }

  const std::string &text;
  size_t pos = 0;
};

uint32_t readLE(const std::vector<uint8_t> &bytes, size_t offset,
                size_t width) {
  uint32_t value = 0;
  for (size_t i = 0; i < width; ++i)
    value |= static_cast<uint32_t>(bytes[offset + i]) << (8 * i);
  return value;
}

} // namespace

bool parseNpy(const std::vector<uint8_t> &bytes, NpyArray &out,
              std::string &error) {
  if (bytes.size() < kMagicLen + 2 ||
      std::memcmp(bytes.data(), kMagic, kMagicLen) != 0) {
    error = "bad magic: not a .npy file (it does not start with \\x93NUMPY)";
    return false;
  }
  unsigned major = bytes[6], minor = bytes[7];
  size_t lengthWidth = major == 1 ? 2 : (major == 2 || major == 3) ? 4 : 0;
  if (lengthWidth == 0) {
    error = "unsupported .npy version " + std::to_string(major) + "." +
            std::to_string(minor);
    return false;
  }
  size_t headerStart = kMagicLen + 2 + lengthWidth;
  if (bytes.size() < headerStart) {
    error = "truncated header: the file ends inside the header length";
    return false;
  }
  size_t headerLen = readLE(bytes, kMagicLen + 2, lengthWidth);
  if (bytes.size() - headerStart < headerLen) {
    error = "truncated header: " + std::to_string(headerLen) +
            " bytes announced, " + std::to_string(bytes.size() - headerStart) +
            " present";
    return false;
  }
  std::string header(bytes.begin() + headerStart,
                     bytes.begin() + headerStart + headerLen);

  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
  if (!HeaderParser(header).parse(descr, fortranOrder, shape, error))
    return false;

  const DTypeCode *code = nullptr;
  for (const DTypeCode &candidate : kDTypeCodes)
    if (descr == candidate.descr)
      code = &candidate;
  if (!code) {
    error = "unsupported dtype '" + descr +
            "' (supported: '<f4', '<f8', '<i4', '<i8', '|b1', '<f2', '|i1', "
            "'|u1')";
    return false;
  }
  if (fortranOrder && shape.size() > 1) {
    error = "fortran_order arrays are unsupported: save the array in C order " +
            std::string("(numpy.ascontiguousarray)");
    return false;
  }

  // Element count and size, refusing overflow.
  size_t dataStart = headerStart + headerLen;
  size_t available = bytes.size() - dataStart;
  size_t elementSize = byteSize(code->dtype);
  uint64_t count = 1;
  for (int64_t dim : shape) {
    if (dim != 0 && count > UINT64_MAX / static_cast<uint64_t>(dim)) {
      error = "shape " + shapeRepr(shape) + " is too large";
      return false;
    }
    count *= static_cast<uint64_t>(dim);
  }
  if (count > (UINT64_MAX / elementSize) || count * elementSize > available) {
    error = "truncated data: shape " + shapeRepr(shape) + " of '" + descr +
            "' needs " +
            (count > UINT64_MAX / elementSize
                 ? std::string("more")
                 : std::to_string(count * elementSize)) +
            " bytes, the file has " + std::to_string(available);
    return false;
  }
  size_t dataBytes = static_cast<size_t>(count * elementSize);
  if (available != dataBytes) {
    error = "unexpected " + std::to_string(available - dataBytes) +
            " trailing bytes after the data of shape " + shapeRepr(shape);
    return false;
  }

  out.dtype = code->dtype;
  out.shape = shape;
  out.data.assign(bytes.begin() + dataStart, bytes.end());
  if (out.dtype == DType::BOOL) {
    for (size_t i = 0; i < out.data.size(); ++i) {
      if (out.data[i] > 1) {
        error = "bool element " + std::to_string(i) + " is " +
                std::to_string(out.data[i]) + ", not 0 or 1";
        return false;
      }
    }
  }
  return true;
}

bool readNpy(const std::string &path, NpyArray &out, std::string &error) {
  std::vector<uint8_t> bytes;
  if (!readBoundedFile(path,
                       mlir::graph::kMaxTensorBytes +
                           mlir::graph::kMaxMetadataBytes,
                       ".npy file", bytes, error))
    return false;
  if (!parseNpy(bytes, out, error)) {
    error = path + ": " + error;
    return false;
  }
  return true;
}

bool encodeNpy(const NpyArray &array, std::vector<uint8_t> &bytes,
               std::string &error) {
  const char *descr = descrOf(array.dtype);
  if (!descr) {
    error = std::string("dtype ") + dtypeName(array.dtype) +
            " has no .npy equivalent";
    return false;
  }
  for (int64_t dim : array.shape) {
    if (dim < 0) {
      error = "shape " + shapeRepr(array.shape) + " has a negative dimension";
      return false;
    }
  }
  uint64_t expected;
  if (__builtin_mul_overflow(static_cast<uint64_t>(array.numElements()),
                             static_cast<uint64_t>(byteSize(array.dtype)),
                             &expected) ||
      array.data.size() != expected) {
    error = "data has " + std::to_string(array.data.size()) +
            " bytes, but shape " + shapeRepr(array.shape) + " of " +
            dtypeName(array.dtype) + " needs " + std::to_string(expected);
    return false;
  }

  // As numpy.lib.format writes it: sorted keys, spare room to grow the first
  // axis, then spaces and '\n' up to a multiple of 64.
  std::string header =
      std::string("{'descr': '") + descr +
      "', 'fortran_order': False, 'shape': " + shapeRepr(array.shape) + ", }";
  if (!array.shape.empty())
    header.append(kGrowthAxisMaxDigits - std::to_string(array.shape[0]).size(),
                  ' ');
  size_t lengthWidth = 2;
  unsigned major = 1;
  auto paddedLength = [&] {
    size_t used = kMagicLen + 2 + lengthWidth + header.size() + 1;
    return header.size() + 1 + (kAlign - used % kAlign);
  };
  if (paddedLength() > 0xffff) {
    lengthWidth = 4;
    major = 2;
  }
  size_t headerLen = paddedLength();
  header.append(headerLen - header.size() - 1, ' ');
  header.push_back('\n');

  std::string prefix(kMagic, kMagicLen);
  prefix.push_back(static_cast<char>(major));
  prefix.push_back('\0');
  for (size_t i = 0; i < lengthWidth; ++i)
    prefix.push_back(static_cast<char>((headerLen >> (8 * i)) & 0xff));
  prefix += header;
  bytes.assign(prefix.begin(), prefix.end());
  bytes.insert(bytes.end(), array.data.begin(), array.data.end());
  return true;
}

bool writeNpy(const std::string &path, const NpyArray &array,
              std::string &error) {
  std::vector<uint8_t> bytes;
  if (!encodeNpy(array, bytes, error))
    return false;
  std::FILE *file = std::fopen(path.c_str(), "wb");
  if (!file) {
    error = path + ": cannot open for writing: " + std::strerror(errno);
    return false;
  }
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  ok = std::fclose(file) == 0 && ok;
  if (!ok) {
    error = path + ": write failed: " + std::strerror(errno);
    return false;
  }
  return true;
}

/// `in`'s elements (of type In) converted one by one by `convert` into an
/// array of `dtype` (elements of type Out), of the same shape.
template <typename In, typename Out, typename Fn>
static NpyArray convertElements(const NpyArray &in, DType dtype, Fn convert) {
  NpyArray out;
  out.dtype = dtype;
  out.shape = in.shape;
  size_t n = in.data.size() / sizeof(In);
  out.data.resize(n * sizeof(Out));
  for (size_t i = 0; i < n; ++i) {
    In x;
    std::memcpy(&x, in.data.data() + i * sizeof(In), sizeof(In));
    Out y = convert(x);
    std::memcpy(out.data.data() + i * sizeof(Out), &y, sizeof(Out));
  }
  return out;
}

NpyArray bf16FromF32(const NpyArray &f32) {
  return convertElements<uint32_t, uint16_t>(
      f32, DType::BF16, [](uint32_t bits) {
        if ((bits & 0x7fffffffu) > 0x7f800000u)
          return static_cast<uint16_t>((bits >> 16) | 0x40); // a quiet NaN
        // Round to nearest, ties to the even upper half.
        return static_cast<uint16_t>(
            (static_cast<uint64_t>(bits) + 0x7fff + ((bits >> 16) & 1)) >> 16);
      });
}

NpyArray f32FromBf16(const NpyArray &bf16) {
  return convertElements<uint16_t, uint32_t>(
      bf16, DType::F32,
      [](uint16_t half) { return static_cast<uint32_t>(half) << 16; });
}

} // namespace tfcc
