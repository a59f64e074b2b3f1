//===- NpyTest.cpp - Tests of .npy reading and writing --------------------===//

#include "compiler/Npy.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace tfcc {
namespace {

std::string tempPath(const std::string &name) {
  return ::testing::TempDir() + "tfcc_npy_" + name;
}

void writeBytes(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

std::vector<uint8_t> toBytes(const std::string &s) {
  return {s.begin(), s.end()};
}

template <typename T>
NpyArray makeArray(DType dtype, std::vector<int64_t> shape,
                   const std::vector<T> &values) {
  NpyArray array;
  array.dtype = dtype;
  array.shape = std::move(shape);
  array.data.resize(values.size() * sizeof(T));
  if (!values.empty())
    std::memcpy(array.data.data(), values.data(), array.data.size());
  return array;
}

// What numpy 1.24 writes for np.save(f, np.arange(6,
// dtype=np.float32).reshape(2, 3)): magic, version 1.0, header length 118, the
// dict padded with spaces to 128 bytes in all, then 0.0 .. 5.0 as little-endian
// floats.
const std::string kArange23 =
    std::string("\x93NUMPY\x01\x00\x76\x00", 10) +
    "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
    "                                                          \n" +
    std::string("\x00\x00\x00\x00\x00\x00\x80\x3f"
                "\x00\x00\x00\x40\x00\x00\x40\x40"
                "\x00\x00\x80\x40\x00\x00\xa0\x40",
                24);

void roundTrip(const NpyArray &array, const std::string &name) {
  SCOPED_TRACE(name);
  std::string path = tempPath(name + ".npy");
  std::string error;
  ASSERT_TRUE(writeNpy(path, array, error)) << error;
  NpyArray back;
  ASSERT_TRUE(readNpy(path, back, error)) << error;
  EXPECT_EQ(back.dtype, array.dtype);
  EXPECT_EQ(back.shape, array.shape);
  EXPECT_EQ(back.data, array.data);
  EXPECT_EQ(back.numElements(), array.numElements());
  std::remove(path.c_str());
}

TEST(NpyTest, RoundTripsEachDType) {
  roundTrip(makeArray<float>(DType::F32, {2, 3},
                             {0.f, 1.5f, -2.f, 3.25f, 1e30f, -0.f}),
            "f32");
  roundTrip(makeArray<int32_t>(DType::I32, {4}, {1, -2, INT32_MAX, INT32_MIN}),
            "i32");
  roundTrip(
      makeArray<int64_t>(DType::I64, {2, 1, 2}, {1, -2, INT64_MAX, INT64_MIN}),
      "i64");
  roundTrip(makeArray<uint8_t>(DType::BOOL, {3}, {1, 0, 1}), "bool");
  roundTrip(makeArray<uint16_t>(DType::F16, {2}, {0x3c00, 0xc000}), "f16");
  roundTrip(makeArray<int8_t>(DType::I8, {2}, {-128, 127}), "i8");
  roundTrip(makeArray<uint8_t>(DType::U8, {3}, {0, 128, 255}), "u8");
  roundTrip(makeArray<double>(DType::F64, {3}, {1.0 + 1e-10, -0.0, 1e300}),
            "f64");
  roundTrip(makeArray<float>(DType::F32, {}, {42.f}), "f32_scalar");
  roundTrip(makeArray<int64_t>(DType::I64, {}, {-7}), "i64_scalar");
  roundTrip(makeArray<int32_t>(DType::I32, {0, 5}, {}), "i32_empty");
}

TEST(NpyTest, ScalarHasOneElement) {
  NpyArray scalar = makeArray<float>(DType::F32, {}, {1.f});
  EXPECT_EQ(scalar.numElements(), 1);
  std::vector<uint8_t> bytes;
  std::string error;
  ASSERT_TRUE(encodeNpy(scalar, bytes, error)) << error;
  std::string text(bytes.begin(), bytes.end());
  EXPECT_NE(text.find("'shape': (), }"), std::string::npos);
  EXPECT_EQ((bytes.size() - 4) % 64,
            0u); // header padded to 64, then 4 data bytes
}

TEST(NpyTest, ReadsNumpyBytes) {
  ASSERT_EQ(kArange23.size(), 128u + 24u);
  std::string path = tempPath("arange.npy");
  writeBytes(path, kArange23);
  NpyArray array;
  std::string error;
  ASSERT_TRUE(readNpy(path, array, error)) << error;
  EXPECT_EQ(array.dtype, DType::F32);
  EXPECT_EQ(array.shape, (std::vector<int64_t>{2, 3}));
  ASSERT_EQ(array.data.size(), 24u);
  std::vector<float> values(6);
  std::memcpy(values.data(), array.data.data(), 24);
  EXPECT_EQ(values, (std::vector<float>{0, 1, 2, 3, 4, 5}));
  std::remove(path.c_str());
}

TEST(NpyTest, WritesWhatNumpyWrites) {
  NpyArray array = makeArray<float>(DType::F32, {2, 3}, {0, 1, 2, 3, 4, 5});
  std::vector<uint8_t> bytes;
  std::string error;
  ASSERT_TRUE(encodeNpy(array, bytes, error)) << error;
  EXPECT_EQ(std::string(bytes.begin(), bytes.end()), kArange23);
}

TEST(NpyTest, ReadsVersion2AndDoubleQuotes) {
  std::string header =
      "{\"shape\": (3L,), \"fortran_order\": False, \"descr\": \"|b1\"}";
  header.append(64 - (12 + header.size() + 1) % 64, ' ');
  header += "\n";
  std::string bytes = std::string("\x93NUMPY\x02\x00", 8);
  uint32_t length = static_cast<uint32_t>(header.size());
  for (int i = 0; i < 4; ++i)
    bytes.push_back(static_cast<char>(length >> (8 * i)));
  bytes += header + std::string("\x01\x00\x01", 3);
  NpyArray array;
  std::string error;
  ASSERT_TRUE(parseNpy(toBytes(bytes), array, error)) << error;
  EXPECT_EQ(array.dtype, DType::BOOL);
  EXPECT_EQ(array.shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(array.data, (std::vector<uint8_t>{1, 0, 1}));
}

void expectError(const std::string &bytes, const std::string &word) {
  NpyArray array;
  std::string error;
  EXPECT_FALSE(parseNpy(toBytes(bytes), array, error));
  EXPECT_NE(error.find(word), std::string::npos) << "error: " << error;
}

std::string replaced(std::string text, const std::string &from,
                     const std::string &to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

// Found by fuzz/npy_read: an empty array whose other dims multiply past
// int64 (numElements() overflowed: undefined behaviour in every caller).
TEST(NpyTest, EmptyArrayWithHugeDims) {
  NpyArray array;
  array.dtype = DType::F32;
  array.shape = {930359017005161005, 15, 0};
  EXPECT_EQ(array.numElements(), 0);
  std::vector<uint8_t> bytes;
  std::string error;
  ASSERT_TRUE(encodeNpy(array, bytes, error)) << error;
  NpyArray back;
  ASSERT_TRUE(parseNpy(bytes, back, error)) << error;
  EXPECT_EQ(back.shape, array.shape);
  EXPECT_EQ(back.numElements(), 0);
  // Without a zero the product saturates, and no data can match it.
  array.shape = {930359017005161005, 15};
  EXPECT_EQ(array.numElements(), INT64_MAX);
  EXPECT_FALSE(encodeNpy(array, bytes, error));
}

TEST(NpyTest, RejectsTruncatedData) {
  expectError(kArange23.substr(0, kArange23.size() - 1), "truncated");
  expectError(kArange23.substr(0, 40), "truncated");
}

TEST(NpyTest, RejectsBadMagic) {
  expectError("PK\x03\x04 not numpy at all", "magic");
  expectError(replaced(kArange23, "NUMPY", "NUMPX"), "magic");
  expectError("", "magic");
}

TEST(NpyTest, RejectsFortranOrder) {
  expectError(replaced(kArange23, "False", "True "), "fortran_order");
}

TEST(NpyTest, RejectsUnsupportedDType) {
  expectError(replaced(kArange23, "'<f4'", "'>f4'"), "unsupported dtype '>f4'");
  expectError(replaced(kArange23, "'<f4'", "'<c8'"), "unsupported dtype");
}

TEST(NpyTest, RejectsOtherDamage) {
  std::string version7 = kArange23;
  version7[6] = 7;
  expectError(version7, "version 7.0");
  expectError(kArange23 + "x", "trailing");
  expectError(replaced(kArange23, "'shape'", "'shope'"), "unexpected key");
  expectError(replaced(kArange23, "(2, 3)", "(2, 3 "), "malformed header");
}

TEST(NpyTest, RejectsBoolOutsideZeroOne) {
  std::vector<uint8_t> bytes;
  std::string error;
  ASSERT_TRUE(
      encodeNpy(makeArray<uint8_t>(DType::BOOL, {2}, {1, 0}), bytes, error));
  bytes.back() = 2;
  NpyArray array;
  EXPECT_FALSE(parseNpy(bytes, array, error));
  EXPECT_NE(error.find("not 0 or 1"), std::string::npos) << error;
}

TEST(NpyTest, ReportsMissingFile) {
  NpyArray array;
  std::string error;
  EXPECT_FALSE(readNpy(tempPath("does_not_exist.npy"), array, error));
  EXPECT_NE(error.find("cannot open"), std::string::npos) << error;
  EXPECT_NE(error.find("does_not_exist.npy"), std::string::npos) << error;
  // A device is not read until memory runs out.
  EXPECT_FALSE(readNpy("/dev/zero", array, error));
  EXPECT_NE(error.find("'/dev/zero' is not a regular file"), std::string::npos)
      << error;
}

TEST(NpyTest, WriteRejectsBadArrays) {
  std::string error;
  NpyArray wrongSize = makeArray<float>(DType::F32, {2, 3}, {1, 2});
  EXPECT_FALSE(writeNpy(tempPath("bad.npy"), wrongSize, error));
  EXPECT_NE(error.find("needs 24"), std::string::npos) << error;
  NpyArray bf16 = makeArray<uint16_t>(DType::BF16, {1}, {0});
  EXPECT_FALSE(writeNpy(tempPath("bad.npy"), bf16, error));
  EXPECT_NE(error.find("bf16"), std::string::npos) << error;
}

// Cross-check against numpy itself when Debian's python3-numpy is installed.
TEST(NpyTest, AgreesWithNumpy) {
  if (std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "numpy is not available to /usr/bin/python3";
  std::string fromNumpy = tempPath("from_numpy.npy");
  std::string fromUs = tempPath("from_us.npy");
  std::string error;
  ASSERT_TRUE(writeNpy(
      fromUs, makeArray<int64_t>(DType::I64, {3, 1}, {7, -8, 9}), error))
      << error;
  std::string script =
      "import numpy as np; a = np.load('" + fromUs +
      "'); assert a.dtype == np.int64 and a.shape == (3, 1) and "
      "a.ravel().tolist() == [7, -8, 9]; "
      "np.save('" +
      fromNumpy + "', np.array([[True, False], [False, True]]))";
  ASSERT_EQ(std::system(("/usr/bin/python3 -c \"" + script + "\"").c_str()), 0);
  NpyArray array;
  ASSERT_TRUE(readNpy(fromNumpy, array, error)) << error;
  EXPECT_EQ(array.dtype, DType::BOOL);
  EXPECT_EQ(array.shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(array.data, (std::vector<uint8_t>{1, 0, 0, 1}));

  // Reading then re-encoding what numpy wrote gives numpy's bytes back.
  const std::vector<std::string> arrays = {"np.float32(3)",
                                           "np.zeros((0, 5), np.int32)",
                                           "np.arange(4, dtype=np.int8)",
                                           "np.arange(3, dtype=np.float16)",
                                           "np.ones((7,) * 3, np.int64)",
                                           "np.array(123456789012, np.int64)"};
  for (size_t i = 0; i < arrays.size(); ++i) {
    SCOPED_TRACE(arrays[i]);
    std::string path = tempPath("numpy_" + std::to_string(i) + ".npy");
    std::string save =
        "import numpy as np; np.save('" + path + "', " + arrays[i] + ")";
    ASSERT_EQ(std::system(("/usr/bin/python3 -c \"" + save + "\"").c_str()), 0);
    ASSERT_TRUE(readNpy(path, array, error)) << error;
    std::vector<uint8_t> encoded;
    ASSERT_TRUE(encodeNpy(array, encoded, error)) << error;
    std::ifstream in(path, std::ios::binary);
    std::vector<uint8_t> original((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
    EXPECT_EQ(encoded, original);
  }
}

} // namespace
} // namespace tfcc
